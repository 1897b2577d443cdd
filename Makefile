# Thin wrappers around ./dev.sh, for people who type `make`.
.PHONY: book test setup clean help student grade

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

# make student OUT=DIR   /   make grade SUBMISSION=PATH   (see book/instructors.md)
student:
	./dev.sh student $(OUT)

grade:
	./dev.sh grade $(SUBMISSION)
