"""Value classes from annotations, standard library only: `value`, `field`, `replace`.

Every value class outside the config model is written with `@value` (the config model is
attrs', which cattrs structures and the editor schema is derived from). Not attrs, whose import
and per-class code generation cost a hook call more than a bare Python start, nor dataclasses,
whose import (inspect) costs about 10 ms (docs/decisions.md has the figures). The meaning is
attrs' for the part cagr uses: fields in annotation order, `field(default=..., factory=...,
converter=..., validator=..., eq=..., init=...)`, slotted classes, `__eq__` and `__repr__` over
the fields, frozen instances hashable and immutable (`replace` makes a changed copy), and
`__post_init__` run after `__init__`.

A class's first instances are built by a generic `__init__`; one built often gets its own,
written as source and compiled (as attrs writes every class's): 100,000 changes of two sides
build in about 0.5 s so, against 1.4 s with the generic one; compiling costs more than most
calls spend on a class, so it waits for the 64th instance.
"""

from __future__ import annotations

from itertools import pairwise
from operator import attrgetter

TYPE_CHECKING = False  # not typing's: the hook paths import this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object) -> Callable[[T], T]:
        return lambda decorator: decorator


__all__ = ["FrozenInstanceError", "field", "replace", "value"]


class FrozenInstanceError(AttributeError):
    """A field of a frozen value was assigned or deleted."""


class _Nothing:
    def __repr__(self) -> str:
        return "NOTHING"


NOTHING: Any = _Nothing()


class Field:
    """How one annotated attribute is initialised and compared."""

    __slots__ = ("converter", "default", "eq", "factory", "init", "name", "repr", "validator")

    def __init__(  # noqa: PLR0913, PLR0917  # field()'s keywords, each with a default
        self,
        default: object = NOTHING,
        factory: Callable[[], object] | None = None,
        converter: Callable[[Any], object] | None = None,
        validator: Callable[[Any, str, Any], None] | None = None,
        eq: bool = True,
        repr: bool = True,  # attrs' name for it
        init: bool = True,
    ) -> None:
        self.name = ""
        self.default = default
        self.factory = factory
        self.converter = converter
        self.validator = validator
        self.eq = eq
        self.repr = repr
        self.init = init

    @property
    def required(self) -> bool:
        return self.default is NOTHING and self.factory is None


def field(  # noqa: PLR0913  # attrs' keywords
    *,
    default: Any = NOTHING,
    factory: Callable[[], Any] | None = None,
    converter: Callable[[Any], Any] | None = None,
    validator: Callable[[Any, str, Any], None] | None = None,
    eq: bool = True,
    repr: bool = True,  # attrs' name for it
    init: bool = True,
) -> Any:
    """An attribute with a default or factory, a converter (run on the given value), a validator
    (called with the instance, the name and the value), or left out of eq/repr/`__init__`."""
    if default is not NOTHING and factory is not None:
        raise TypeError("a field takes a default or a factory, not both")
    return Field(default, factory, converter, validator, eq, repr, init)


def _is_class_var(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _fields(cls: type) -> tuple[Field, ...]:
    """The class's fields: its bases' first, then its own annotations in order."""
    fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for inherited in getattr(base, "__value_fields__", ()):
            fields[inherited.name] = inherited
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063
        if _is_class_var(annotation):
            continue
        value = cls.__dict__.get(name, NOTHING)
        made = value if isinstance(value, Field) else Field(default=value)
        made.name = name
        fields.pop(name, None)
        fields[name] = made
    return tuple(fields.values())


def _build(cls: type, frozen: bool, kw_only: bool) -> type:
    fields = _fields(cls)
    positional = [f for f in fields if f.init and not kw_only]
    for before, after in pairwise(positional):
        if not before.required and after.required:
            raise TypeError(
                f"{cls.__name__}.{after.name}: a field without a default follows one with"
            )
    inherited = {name for base in cls.__mro__[1:] for name in getattr(base, "__slots__", ())}
    namespace = {
        key: value
        for key, value in cls.__dict__.items()
        if key not in ("__dict__", "__weakref__") and key not in {f.name for f in fields}
    }
    namespace["__slots__"] = tuple(f.name for f in fields if f.name not in inherited)
    namespace["__value_fields__"] = fields
    compared = tuple(f.name for f in fields if f.eq)
    key = attrgetter(*compared) if compared else (lambda _: ())
    shown = tuple(f.name for f in fields if f.repr)

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(key(self) == key(other))

    def __ne__(self: Any, other: object) -> bool:
        equal = __eq__(self, other)
        return equal if equal is NotImplemented else not equal

    def __repr__(self: Any) -> str:
        listed = ", ".join(f"{name}={getattr(self, name, NOTHING)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({listed})"

    namespace.update(__eq__=__eq__, __ne__=__ne__, __repr__=__repr__)
    namespace["__init__"] = _lazy_init(fields, frozen, kw_only)
    if frozen:
        namespace.update(
            __hash__=lambda self: hash((self.__class__.__qualname__, key(self))),
            __setattr__=_refuse,
            __delattr__=_refuse,
            __getstate__=lambda self: {f.name: getattr(self, f.name) for f in fields},
            __setstate__=_set_state,
        )
    else:
        namespace["__hash__"] = None  # mutable and compared by value: unhashable, as in attrs
    built = type(cls)(cls.__name__, cls.__bases__, namespace)
    built.__qualname__ = cls.__qualname__
    return built


def _refuse(self: object, name: str, *_: object) -> None:
    raise FrozenInstanceError(f"{type(self).__name__}.{name} cannot be changed; use replace()")


def _set_state(self: object, state: dict[str, object]) -> None:
    for name, value in state.items():
        object.__setattr__(self, name, value)


_COMPILE_AFTER = 64  # instances built generically before a class gets its own __init__


def _lazy_init(fields: tuple[Field, ...], frozen: bool, kw_only: bool) -> Callable[..., None]:
    """A generic `__init__`, replaced by a written one once the class has been built often."""
    names = tuple(f.name for f in fields if f.init and not kw_only)
    accepted = frozenset(f.name for f in fields if f.init)
    validated = tuple(f for f in fields if f.validator is not None)
    built = 0

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal built
        built += 1
        if built >= _COMPILE_AFTER:
            owner = next(c for c in type(self).__mro__ if c.__dict__.get("__init__") is __init__)
            written = _write_init(owner, fields, frozen, kw_only)
            owner.__init__ = written  # type: ignore[misc]
            written(self, *args, **kwargs)
            return
        name = type(self).__name__
        if len(args) > len(names):
            raise TypeError(f"{name}() takes {len(names)} positional arguments, {len(args)} given")
        given = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key in given or key not in accepted:
                raise TypeError(f"{name}() got an unexpected or repeated argument {key!r}")
            given[key] = value
        for f in fields:
            value = given.get(f.name, NOTHING) if f.init else NOTHING
            if value is NOTHING:
                if f.factory is not None:
                    value = f.factory()
                elif f.default is not NOTHING:
                    value = f.default
                elif f.init:
                    raise TypeError(f"{name}() missing the argument {f.name!r}")
                else:
                    continue  # set by __post_init__
            if f.converter is not None:
                value = f.converter(value)
            if frozen:
                object.__setattr__(self, f.name, value)
            else:
                setattr(self, f.name, value)
        for f in validated:
            f.validator(self, f.name, getattr(self, f.name))  # type: ignore[misc]
        if hasattr(self, "__post_init__"):
            self.__post_init__()

    return __init__


def _write_init(
    owner: type, fields: tuple[Field, ...], frozen: bool, kw_only: bool
) -> Callable[..., None]:
    scope: dict[str, object] = {"NOTHING": NOTHING, "_set": object.__setattr__}
    parameters: list[str] = []
    keywords: list[str] = []
    lines: list[str] = []
    for f in fields:
        name = f.name
        if f.init:
            if f.factory is not None:
                scope[f"_factory_{name}"] = f.factory
                parameter = f"{name}=NOTHING"
                value = f"_factory_{name}() if {name} is NOTHING else {name}"
            elif f.default is not NOTHING:
                scope[f"_default_{name}"] = f.default
                parameter, value = f"{name}=_default_{name}", name
            else:
                parameter, value = name, name
            (keywords if kw_only else parameters).append(parameter)
        elif f.factory is not None:
            scope[f"_factory_{name}"] = f.factory
            value = f"_factory_{name}()"
        elif f.default is not NOTHING:
            scope[f"_default_{name}"] = f.default
            value = f"_default_{name}"
        else:
            continue  # set by __post_init__
        if f.converter is not None:
            scope[f"_convert_{name}"] = f.converter
            value = f"_convert_{name}({value})"
        lines.append(f"_set(self, {name!r}, {value})" if frozen else f"self.{name} = {value}")
    for f in fields:
        if f.validator is not None:
            scope[f"_validate_{f.name}"] = f.validator
            lines.append(f"_validate_{f.name}(self, {f.name!r}, self.{f.name})")
    if hasattr(owner, "__post_init__"):
        lines.append("self.__post_init__()")
    signature = ", ".join(["self", *parameters, *(["*", *keywords] if keywords else [])])
    body = "\n    ".join(lines or ["pass"])
    source = f"def __init__({signature}):\n    {body}\n"
    exec(compile(source, f"<{owner.__qualname__}.__init__>", "exec"), scope)
    init: Callable[..., None] = scope["__init__"]  # type: ignore[assignment]
    init.__qualname__ = f"{owner.__qualname__}.__init__"
    return init


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def value(maybe_cls: type[T] | None = None, *, frozen: bool = True, kw_only: bool = False) -> Any:
    """A slotted value class: `@value`, `@value(kw_only=True)`; `@value(frozen=False)` for the
    few mutable ones (an evaluation's working state), which are unhashable."""
    if maybe_cls is None:
        return lambda cls: _build(cls, frozen=frozen, kw_only=kw_only)
    return _build(maybe_cls, frozen=frozen, kw_only=kw_only)


def replace(instance: T, **changes: Any) -> T:
    """A copy of the value with some fields replaced (converters and validators run again)."""
    cls = type(instance)
    arguments = {
        f.name: getattr(instance, f.name)
        for f in cls.__value_fields__  # type: ignore[attr-defined]
        if f.init
    }
    unknown = changes.keys() - arguments.keys()
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")
    arguments.update(changes)
    return cls(**arguments)
