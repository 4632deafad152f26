"""What every filter shell test checks: each argument reaches the module_utils function."""
from __future__ import annotations


def assert_each_argument_matters(function, base, changes):
    """function(**base) differs from function(**base) with each one argument changed.

    A shell that drops an argument, or passes a default in its place, gives the same result for
    both calls and fails here.
    """
    reference = function(**base)
    for name, other in changes.items():
        assert name in base, name
        assert function(**changed(base, **{name: other})) != reference, "argument %s has no effect" % name
    return reference


def changed(base, **changes):
    """A copy of the keyword arguments `base` with `changes` applied."""
    result = dict(base)
    result.update(changes)
    return result
