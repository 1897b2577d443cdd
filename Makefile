# Thin wrappers around ./dev.sh, for people who type `make`.
.PHONY: book test setup clean help

book:
	./dev.sh book

test:
	./dev.sh test

setup:
	./dev.sh setup

help:
	./dev.sh help

clean:
	./dev.sh clean
