"""cagr_core.values: attrs' meaning for the part cagr uses, whichever `__init__` builds a value."""

from __future__ import annotations

import copy
import pickle

import pytest

from cagr_core import values
from cagr_core.values import FrozenInstanceError, field, replace, value


def _sorted(items: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    return tuple(sorted(items))


def _positive(_: object, name: str, value: int) -> None:
    if value < 0:
        raise ValueError(f"{name} must not be negative")


@value
class Point:
    x: int = field(validator=_positive)
    tags: tuple[int, ...] = field(default=(), converter=_sorted)
    seen: list[str] = field(factory=list, eq=False, repr=False)
    label: str = "p"

    def __post_init__(self) -> None:
        self.seen.append("built")


@value(kw_only=True)
class Named:
    first: str = "a"
    second: str


@value(frozen=False)
class Counter:
    count: int = 0
    log: list[int] = field(factory=list)


def _both_ways() -> list[str]:
    return ["generic", "written"]


@pytest.fixture(params=_both_ways())
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Build with the generic __init__, or with the written one (from the first instance)."""
    if request.param == "written":
        monkeypatch.setattr(values, "_COMPILE_AFTER", 1)
    for cls in (Point, Named, Counter):  # fresh, unwritten __init__ for each way
        fields = cls.__value_fields__  # type: ignore[attr-defined]
        frozen_ = cls is not Counter
        kw_only = cls is Named
        monkeypatch.setattr(cls, "__init__", values._lazy_init(fields, frozen_, kw_only))
    return str(request.param)


@pytest.mark.usefixtures("way")
class TestBuilding:
    """Defaults, factories, converters, validators and __post_init__, in attrs' order."""

    def test_defaults_converters_and_post_init(self) -> None:
        point = Point(1, [3, 2])
        assert (point.x, point.tags, point.seen, point.label) == (1, (2, 3), ["built"], "p")
        assert Point(2).seen is not Point(2).seen  # a factory runs per instance

    def test_keywords_and_positions(self) -> None:
        assert Point(x=1, label="q") == Point(1, (), label="q")
        assert Named(second="b") == Named(first="a", second="b")

    def test_validator_runs(self) -> None:
        with pytest.raises(ValueError, match="x must not be negative"):
            Point(-1)

    @pytest.mark.parametrize(
        "call",
        [
            Point,
            lambda: Point(1, (), [], "p", "extra"),
            lambda: Point(1, y=2),
            lambda: Point(1, x=1),
            lambda: Named("a", "b"),
        ],
    )
    def test_wrong_arguments_are_type_errors(self, call: object) -> None:
        with pytest.raises(TypeError):
            call()  # type: ignore[operator]

    def test_many_instances_switch_to_the_written_init_and_agree(self) -> None:
        points = [Point(n % 7, (n, 1)) for n in range(200)]
        assert Point.__init__.__name__ == "__init__"
        assert points[150] == Point(150 % 7, (1, 150))
        assert all(p.seen == ["built"] for p in points)


class TestValues:
    """Compared by their fields, hashable when frozen, changed only by replace."""

    def test_equality_ignores_fields_left_out(self) -> None:
        a, b = Point(1, (1,)), Point(1, (1,))
        b.seen.append("more")
        assert a == b
        assert hash(a) == hash(b)
        assert a != Point(2, (1,))
        assert a != (1, (1,))  # a value is never equal to another type

    def test_frozen(self) -> None:
        point = Point(1)
        with pytest.raises(FrozenInstanceError):
            point.x = 2  # type: ignore[misc]
        with pytest.raises(FrozenInstanceError):
            del point.label

    def test_slotted(self) -> None:
        with pytest.raises((AttributeError, TypeError)):
            Point(1).other = 1  # type: ignore[attr-defined]
        assert not hasattr(Point(1), "__dict__")

    def test_evolve_runs_converters_again(self) -> None:
        point = replace(Point(1, (5, 4)), tags=[9, 8], label="q")
        assert (point.x, point.tags, point.label) == (1, (8, 9), "q")
        with pytest.raises(TypeError, match="no field nope"):
            replace(point, nope=1)

    def test_repr_names_the_fields_shown(self) -> None:
        assert repr(Point(1)) == "Point(x=1, tags=(), label='p')"

    def test_copies_and_pickles(self) -> None:
        point = Point(3, (2, 1))
        assert copy.deepcopy(point) == point
        assert pickle.loads(pickle.dumps(point)) == point

    def test_a_mutable_class_is_assignable_and_unhashable(self) -> None:
        counter = Counter()
        counter.count += 1
        counter.log.append(1)
        assert counter == Counter(1, [1])
        with pytest.raises(TypeError):
            hash(counter)

    def test_a_required_field_after_a_default_is_refused(self) -> None:
        with pytest.raises(TypeError, match="without a default follows one with"):

            @value
            class Bad:
                a: int = 1
                b: int
