"""Hidden tests of the course's exercises: call a learner's answer with the built-in it rebuilds taken away.

Not a PyTorch name (hence the underscore): a helper of the course's grader,
like ``nnref._exercise``.  An exercise that asks to rebuild something nnref has
(``my_linear`` for ``F.linear``) checks the answer against it, so an answer
that only calls it would pass those checks.  Its hidden tests call the answer
through ``without``::

    assert without("layers-ex2", [F.linear], lambda: my_linear(x, w, b).tolist()) == \\
        F.linear(x, w, b).tolist()

While ``thunk`` runs, each function taken away has its code object swapped
for one that raises ``NotImplementedError`` naming the exercise, so that a
reference captured before the test (``_f = F.linear``, a ``partial``, a bound
method) or reached through other code (``Module.modules`` calling
``named_modules``) fails too; a decorated function's ``__wrapped__`` ones too.
A class is taken away as every function of its own namespace (methods,
static and class methods, property getters and setters).  The code is put
back afterwards, whatever happened.  ``thunk`` must return data computed
from the answer's results (a list, not a generator that would run later).

What it does not stop: an answer that carries a copy of the built-in's code
(its source ships with nnref), or one that patches this module or the test.
"""
import inspect

__all__ = ["without"]


def _functions(taken):
    """The plain Python functions behind ``taken``: a function, its ``__wrapped__`` chain, or a class's own."""
    if isinstance(taken, type):
        found = []
        for value in vars(taken).values():
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, property):
                found += [f for f in (value.fget, value.fset, value.fdel) if f is not None]
            elif inspect.isfunction(value):
                found.append(value)
        return found
    taken = getattr(taken, "__func__", taken)  # a bound method: its function
    found = []
    while inspect.isfunction(taken) and taken not in found:
        found.append(taken)
        taken = getattr(taken, "__wrapped__", None)
    if not found:
        raise TypeError(f"without() takes Python functions and classes away, not {type(taken).__name__} objects")
    return found


def _raising_code(function, exercise):
    """A code object for ``function`` (its free variables, so that it can be swapped in) that raises, naming
    ``exercise``."""
    code = function.__code__
    name = f"{function.__module__}.{function.__qualname__}"
    message = (f"{name} is taken away while exercise {exercise} is checked: the exercise asks you to rebuild "
               f"it, not to call it")
    free = code.co_freevars
    # The free variables are named in dead code: the compiler keeps them as free variables.
    source = (f"def _outer():\n    {' = '.join(free + ('None',))}\n"
              f"    def {code.co_name}(*args, **kwargs):\n"
              f"        if False:\n            ({', '.join(free + ('None',))})\n"
              f"        raise NotImplementedError({message!r})\n"
              f"    return {code.co_name}\n")
    namespace = {}
    exec(compile(source, f"<{name} taken away>", "exec"), namespace)
    stub = namespace["_outer"]().__code__
    if stub.co_freevars != free:
        raise RuntimeError(f"cannot take {name} away: its free variables {free} are not {stub.co_freevars}")
    return stub


def without(exercise, taken, thunk):
    """``thunk()``, with each function or class in ``taken`` raising an error that names ``exercise``."""
    functions = [f for t in taken for f in _functions(t)]
    saved = [(f, f.__code__) for f in dict.fromkeys(functions)]
    stubs = [_raising_code(f, exercise) for f, _code in saved]
    try:
        for (function, _code), stub in zip(saved, stubs):
            function.__code__ = stub
        return thunk()
    finally:
        for function, code in saved:
            function.__code__ = code
