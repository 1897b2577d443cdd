"""Instructor tooling for the course "Inside nn.Module" (not needed to use nnref).

* :mod:`.markers` -- the solution markers, nbgrader's ``### BEGIN SOLUTION`` /
  ``### END SOLUTION`` and ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``;
* :mod:`.tasks` -- the tasks they define (in nnref's source and in the
  chapters' exercises) and the task map;
* :mod:`.student` -- the student edition;
* :mod:`.grader` -- the autograder.

Command line: ``python -m coursekit {student,grade,tasks,check,mark,site-config}``
(``python -m coursekit --help``).  The instructor guide is book/instructors.md.
"""
