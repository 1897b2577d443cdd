"""Submissions are data: copied, bounded and named by the instructor before anything reads them.

A submission (a folder, or a zip of one) is student-written from its first
byte: its links may point at the instructor's files, its sizes and member
names may lie, its members may be damaged.  ``ingest`` copies it into a fresh
folder the grader owns, with

* **regular files only**: symbolic links, devices, FIFOs and sockets are not
  followed or copied, each with a line for the feedback (``notes``);
* **bounds checked before reading**: at most ``MAX_FILES`` entries, ``MAX_FILE``
  bytes per file and ``MAX_TOTAL`` in all, counted on the bytes actually read
  (a zip's declared sizes are not trusted), ``MAX_DEPTH`` folders deep;
* **normalised names**: NFC, no ``..``, no absolute paths, no control
  characters, no name twice (a member that breaks these is left out, with a note).

Everything after reads only that copy.  The student's id never comes from
the submission (see ``submission_id``), and every text of the reports that a
submission can influence goes through ``markdown_cell`` or ``csv_cell``.
"""
import hashlib
import os
import re
import stat
import unicodedata
import zipfile
import zlib
from pathlib import Path

from .tasks import CourseError

MAX_FILES = 20_000
MAX_FILE = 64 << 20
MAX_TOTAL = 256 << 20
CLASS_TOTAL = 8 << 30  # a class's archive (the instructor's download): many submissions
MAX_DEPTH = 32
MAX_NAME = 255
CHUNK = 1 << 20


class _Budget:
    """What a submission may still hold: files and bytes, counted as they are copied."""

    def __init__(self, origin, total=MAX_TOTAL):
        self.origin, self.files, self.bytes, self.total = origin, 0, 0, total

    def add_file(self):
        self.files += 1
        if self.files > MAX_FILES:
            raise CourseError(f"{self.origin}: more than {MAX_FILES} files and folders")

    def add_bytes(self, count):
        self.bytes += count
        if self.bytes > self.total:
            raise CourseError(f"{self.origin}: more than {self.total >> 20} MiB in all")


def normal_parts(name):
    """The parts of a member's path, normalised; ``None`` for a name that cannot be taken as it is."""
    name = unicodedata.normalize("NFC", name.replace("\\", "/"))
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." or len(p.encode()) > MAX_NAME or any(unicodedata.category(c)[0] == "C"
                                                                         for c in p) for p in parts):
        return None
    return parts


def _copy_stream(read, target, budget):
    """Copy ``read(n)`` chunks into ``target``, at most ``MAX_FILE`` bytes; ``False`` if it is larger."""
    written = 0
    with open(target, "xb") as out:
        while True:
            chunk = read(CHUNK)
            if not chunk:
                return True
            written += len(chunk)
            if written > MAX_FILE:
                out.close()
                target.unlink()
                return False
            budget.add_bytes(len(chunk))
            out.write(chunk)


def _place(target_root, parts, seen, notes, shown):
    """The path for ``parts`` under ``target_root`` (folders made), or None if taken."""
    key = "/".join(parts)
    if key in seen:
        notes.append(f"`{shown}` was left out: a file of that name is already in the submission")
        return None
    seen.add(key)
    path = target_root.joinpath(*parts)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _ingest_folder(source, target, budget, notes):
    seen = set()

    def walk(folder, parts):
        if len(parts) > MAX_DEPTH:
            raise CourseError(f"{source.name}: folders more than {MAX_DEPTH} deep")
        with os.scandir(folder) as entries:
            listed = sorted(entries, key=lambda e: e.name)
        for entry in listed:
            budget.add_file()
            shown = "/".join([*parts, entry.name])
            info = entry.stat(follow_symlinks=False)
            name = normal_parts(entry.name)
            if name is None:
                notes.append(f"`{_printable(shown)}` was left out: its name has characters a file name cannot hold")
                continue
            if stat.S_ISDIR(info.st_mode):
                walk(entry.path, [*parts, *name])
            elif stat.S_ISREG(info.st_mode):
                _copy_file(entry.path, target, [*parts, *name], budget, notes, seen, info)
            else:
                notes.append(f"`{_printable(shown)}` was left out: it is {_kind(info.st_mode)}, "
                             "and a submission holds regular files only")

    walk(source, [])


def _copy_file(path, target, parts, budget, notes, seen, info):
    shown = _printable("/".join(parts))
    if info.st_size > MAX_FILE:
        notes.append(f"`{shown}` was left out: larger than {MAX_FILE >> 20} MiB")
        return
    destination = _place(target, parts, seen, notes, shown)
    if destination is None:
        return
    try:  # O_NOFOLLOW: a file replaced by a link since it was listed is not followed either
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        notes.append(f"`{shown}` was left out: it cannot be read ({err.strerror})")
        return
    with os.fdopen(descriptor, "rb") as source:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            notes.append(f"`{shown}` was left out: it is not a regular file")
            return
        if not _copy_stream(source.read, destination, budget):
            notes.append(f"`{shown}` was left out: larger than {MAX_FILE >> 20} MiB")


def _ingest_zip(source, target, budget, notes):
    seen = set()
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise CourseError(f"{source.name} is not a zip file that can be read: {err}") from err
    with archive:
        members = archive.infolist()
        if len(members) > MAX_FILES:
            raise CourseError(f"{source.name}: more than {MAX_FILES} files and folders")
        for member in members:
            budget.add_file()
            shown = _printable(member.filename)
            parts = normal_parts(member.filename)
            mode = member.external_attr >> 16
            if parts is None:
                notes.append(f"`{shown}` was left out: its name is not a path inside the submission")
                continue
            if member.is_dir():
                continue
            if mode and stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                notes.append(f"`{shown}` was left out: it is {_kind(mode)}, and a submission holds regular files only")
                continue
            if len(parts) > MAX_DEPTH:
                notes.append(f"`{shown}` was left out: more than {MAX_DEPTH} folders deep")
                continue
            if member.file_size > MAX_FILE:
                notes.append(f"`{shown}` was left out: larger than {MAX_FILE >> 20} MiB")
                continue
            destination = _place(target, parts, seen, notes, shown)
            if destination is None:
                continue
            try:
                with archive.open(member) as stream:
                    complete = _copy_stream(stream.read, destination, budget)
            except CourseError:
                raise
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError,
                    ValueError) as err:
                destination.unlink(missing_ok=True)
                notes.append(f"`{shown}` was left out: the zip member is damaged ({type(err).__name__})")
                continue
            if not complete:
                notes.append(f"`{shown}` was left out: larger than {MAX_FILE >> 20} MiB")


def ingest(source, target, total=MAX_TOTAL):
    """Copy the submission ``source`` (folder or zip) into the new folder ``target``: ``(target, notes)``.

    ``notes``: one line per thing left out, for the student's feedback.
    ``total``: the bytes it may hold (``CLASS_TOTAL`` for a class's archive,
    whose members, submissions, are bounded again when each is copied).
    Raises ``CourseError`` when the submission as a whole is out of bounds.
    """
    source, target = Path(source), Path(target)
    target.mkdir(parents=True)
    notes = []
    budget = _Budget(source.name, total)
    info = os.lstat(source)
    if stat.S_ISDIR(info.st_mode):
        _ingest_folder(source, target, budget, notes)
    elif stat.S_ISREG(info.st_mode):
        _ingest_zip(source, target, budget, notes)
    else:
        raise CourseError(f"{source.name} is {_kind(info.st_mode)}, not a folder or a zip file")
    return target, notes


def _kind(mode):
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _printable(text, limit=120):
    """A name for the feedback: no control characters, no Markdown, bounded."""
    return markdown_cell("".join(c if unicodedata.category(c)[0] != "C" else "?" for c in text), limit)


# -- identity ---------------------------------------------------------------------------------------------
def submission_id(name):
    """The student's id: the submission's file or folder name, which the instructor's download sets.

    ``alice.zip`` -> ``alice``; characters outside letters, digits and ``.-_@`` become ``_``.
    """
    stem = name[:-4] if name.lower().endswith(".zip") else name
    stem = unicodedata.normalize("NFC", stem).strip()
    return re.sub(r"[^\w.@-]", "_", stem, flags=re.ASCII)[:100].strip("._") or None


def content_key(path):
    """A hash of a submission's bytes, read in bounded chunks, links and special files not followed."""
    digest = hashlib.sha256()
    path = Path(path)
    budget = [MAX_TOTAL + MAX_FILE]

    def add(file, relative):
        info = os.lstat(file)
        digest.update(f"{relative}\0{stat.S_IFMT(info.st_mode)}\0{info.st_size}\0".encode(errors="replace"))
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE * 4 or budget[0] <= 0:
            return  # not read: the copy refuses it anyway
        try:
            descriptor = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return
        with os.fdopen(descriptor, "rb") as source:
            while budget[0] > 0:
                chunk = source.read(CHUNK)
                if not chunk:
                    break
                budget[0] -= len(chunk)
                digest.update(chunk)

    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode):
        count = 0
        for folder, dirs, files in os.walk(path):  # os.walk does not follow links to folders
            dirs.sort()
            for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
                count += 1
                if count > MAX_FILES:
                    break
                file = os.path.join(folder, name)
                add(file, os.path.relpath(file, path))
    else:
        add(path, "")
    return digest.hexdigest()[:24]


# -- report cells ------------------------------------------------------------------------------------------
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~&$-])")


def markdown_cell(text, limit=300):
    """``text`` as plain text in a Markdown table cell: one line, every Markdown character escaped."""
    text = " ".join(str(text).split())[:limit]
    return _MARKDOWN.sub(r"\\\1", text)


def csv_cell(value):
    """A gradebook cell a spreadsheet shows as text: a string starting a formula gets a leading ``'``."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r", "|", "%"):
        return "'" + value
    return value
