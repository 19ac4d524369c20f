"""SCIM filters (RFC 7644 §3.4.2.2) and PATCH paths (§3.5.2), parsed into a small AST, and
evaluated against a SCIM document (:func:`matches`).

Grammar (RFC 7644 Figure 1)::

    FILTER    = attrExp / logExp / valuePath / *1"not" "(" FILTER ")"
    valuePath = attrPath "[" valFilter "]"
    attrExp   = (attrPath SP "pr") / (attrPath SP compareOp SP compValue)
    logExp    = FILTER SP ("and" / "or") SP FILTER
    compValue = false / null / true / number / string      ; JSON (RFC 7159)
    compareOp = "eq" / "ne" / "co" / "sw" / "ew" / "gt" / "lt" / "ge" / "le"
    attrPath  = [URI ":"] ATTRNAME *1subAttr
    PATH      = attrPath / valuePath [subAttr]              ; PATCH, §3.5.2

Precedence: grouping, then ``not`` over ``and`` over ``or`` (§3.4.2.2); ``and`` and ``or``
associate to the left. Operators, ``true``/``false``/``null`` and attribute names are
case-insensitive (ABNF strings; RFC 7643 §2.1). One leniency: ``emails[type eq "work"].value
eq "x"`` (a value path followed by a sub-attribute comparison, which some clients send) is
read as ``emails[type eq "work" and value eq "x"]``.

Limits, so that a filter cannot exhaust the stack or the CPU: :data:`MAX_FILTER_LENGTH`
characters, :data:`MAX_DEPTH` nested groups (``( )``, ``not ( )``, ``[ ]``) and
:data:`MAX_TERMS` attribute expressions. Every failure is a :class:`ScimError` 400
``invalidFilter`` (``invalidPath`` for a PATCH path) whose detail names the problem.

Evaluation (:func:`matches`, RFC 7644 §3.4.2.2): string comparisons follow the attribute's
``caseExact``; ``gt``/``ge``/``lt``/``le`` compare strings lexicographically, numbers
numerically and ``dateTime`` values chronologically; ``co``/``sw``/``ew`` apply to strings
only, and ordering operators are refused on booleans and binaries (``invalidFilter``). A
multi-valued attribute matches when any of its values matches. ``ne`` is the negation of
``eq``: an absent attribute matches ``ne`` (and ``not (x eq y)``), never ``eq``;
``x eq null`` means "x is absent" and ``x ne null`` "x is present". A complex attribute
compared without a sub-attribute compares its ``value`` sub-attribute (``emails eq "x"`` is
``emails.value eq "x"``).
"""

# Hand-written rather than scim2-filter-parser (PyPI): that package builds its tree with sly,
# declares "and"/"or" non-associative (so "a pr and b pr and c pr" is a syntax error), reads
# "not" as a binary operator, reports syntax errors by printing to stderr, and ships no
# types for mypy --strict. A recursive-descent parser over the string is about as long as
# the conversion from its tree would be, and lets us bound length, depth and terms.

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final, Literal, TypeAlias

import msgspec

from admin_service.scim.rfc7643_schema import Attribute, ResourceSchema
from admin_service.scim.rfc7644_errors import ScimError

__all__ = [
    "COMPARE_OPS",
    "MAX_DEPTH",
    "MAX_FILTER_LENGTH",
    "MAX_TERMS",
    "And",
    "AttrPath",
    "CompValue",
    "Compare",
    "CompareOp",
    "Filter",
    "Not",
    "Or",
    "PatchPath",
    "Present",
    "ValuePath",
    "format_filter",
    "format_path",
    "matches",
    "matches_element",
    "parse_attr_path",
    "parse_datetime",
    "parse_filter",
    "parse_patch_path",
    "value_of",
]

MAX_FILTER_LENGTH: Final = 4096
MAX_DEPTH: Final = 16
MAX_TERMS: Final = 100

CompareOp = Literal["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"]
COMPARE_OPS: Final[frozenset[str]] = frozenset(
    {"eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"}
)
CompValue: TypeAlias = str | int | float | bool | None


class AttrPath(msgspec.Struct, frozen=True):
    """``[urn:]attribute[.sub_attribute]`` as written (compare names case-insensitively)."""

    urn: str | None
    attribute: str
    sub_attribute: str | None = None


class Compare(msgspec.Struct, frozen=True):
    path: AttrPath
    op: CompareOp
    value: CompValue


class Present(msgspec.Struct, frozen=True):
    path: AttrPath


class And(msgspec.Struct, frozen=True):
    left: Filter
    right: Filter


class Or(msgspec.Struct, frozen=True):
    left: Filter
    right: Filter


class Not(msgspec.Struct, frozen=True):
    inner: Filter


class ValuePath(msgspec.Struct, frozen=True):
    """``path[filter]``: the paths inside ``filter`` name sub-attributes of ``path``."""

    path: AttrPath
    filter: Filter


Filter: TypeAlias = Compare | Present | And | Or | Not | ValuePath


class PatchPath(msgspec.Struct, frozen=True):
    """A PATCH ``path`` (§3.5.2): ``members[value eq "x"].display`` is
    ``PatchPath(AttrPath(None, "members"), Compare(...), "display")``."""

    path: AttrPath
    value_filter: Filter | None
    sub_attribute: str | None


# --- parsing ---------------------------------------------------------------------------

_NAME: Final = re.compile(r"\$?[A-Za-z][A-Za-z0-9_-]*")
_PATH_RUN: Final = re.compile(r"[A-Za-z0-9:._$-]+")
_WORD: Final = re.compile(r"[A-Za-z]+")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SPACE: Final = frozenset(" \t\r\n")
_LITERALS: Final[dict[str, CompValue]] = {"true": True, "false": False, "null": None}


class _Parser:
    def __init__(self, text: str, scim_type: str) -> None:
        if len(text) > MAX_FILTER_LENGTH:
            raise ScimError(400, f"longer than {MAX_FILTER_LENGTH} characters", scim_type)
        self.text = text
        self.pos = 0
        self.depth = 0
        self.terms = 0
        self.scim_type = scim_type

    def fail(self, problem: str) -> ScimError:
        return ScimError(400, f"{problem} at position {self.pos}", self.scim_type)

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _SPACE:
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "the end"
            raise self.fail(f"expected '{char}' but found {found}")
        self.pos += 1

    def keyword(self, word: str) -> bool:
        """Consume ``word`` (any case) when it comes next as a whole word."""
        self.skip_space()
        m = _WORD.match(self.text, self.pos)
        if m is None or m.group().lower() != word:
            return False
        end = m.end()
        if end < len(self.text) and (self.text[end].isalnum() or self.text[end] in "_-:.$"):
            return False
        self.pos = end
        return True

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"nested deeper than {MAX_DEPTH} levels")

    def at_end(self) -> None:
        self.skip_space()
        if self.pos < len(self.text):
            raise self.fail(f"unexpected {self.text[self.pos : self.pos + 20]!r}")

    # FILTER with "or" binding loosest, then "and", then "not" / grouping.
    def disjunction(self, in_value: bool) -> Filter:
        left = self.conjunction(in_value)
        while self.keyword("or"):
            left = Or(left, self.conjunction(in_value))
        return left

    def conjunction(self, in_value: bool) -> Filter:
        left = self.unary(in_value)
        while self.keyword("and"):
            left = And(left, self.unary(in_value))
        return left

    def unary(self, in_value: bool) -> Filter:
        if self.keyword("not"):
            if self.peek() != "(":
                raise self.fail("expected '(' after 'not'")
            return Not(self.group(in_value))
        if self.peek() == "(":
            return self.group(in_value)
        return self.attr_expression(in_value)

    def group(self, in_value: bool) -> Filter:
        self.expect("(")
        self.enter()
        inner = self.disjunction(in_value)
        self.expect(")")
        self.depth -= 1
        return inner

    def attr_path(self, in_value: bool) -> AttrPath:
        self.skip_space()
        m = _PATH_RUN.match(self.text, self.pos)
        if m is None:
            found = repr(self.text[self.pos]) if self.pos < len(self.text) else "the end"
            raise self.fail(f"expected an attribute name but found {found}")
        run = m.group()
        urn: str | None = None
        rest = run
        if ":" in run:
            urn, _, rest = run.rpartition(":")
            if not urn.lower().startswith("urn:") or urn.endswith(":") or not rest:
                raise self.fail(f"'{run}' is not an attribute path")
        parts = rest.split(".")
        if len(parts) > 2 or not all(_NAME.fullmatch(p) for p in parts):
            raise self.fail(f"'{run}' is not an attribute path")
        if in_value and (urn is not None or len(parts) > 1):
            raise self.fail(f"'{run}' inside [ ] must be a sub-attribute name")
        self.pos = m.end()
        return AttrPath(urn, parts[0], parts[1] if len(parts) > 1 else None)

    def attr_expression(self, in_value: bool) -> Filter:
        path = self.attr_path(in_value)
        if self.text.startswith("[", self.pos):
            if in_value:
                raise self.fail("a value filter inside a value filter")
            if path.sub_attribute is not None:
                raise self.fail(f"'{format_path(path)}' has a sub-attribute before '['")
            inner = self.bracket()
            if self.text.startswith(".", self.pos):  # leniency: path[filter].sub op value
                self.pos += 1
                m = _NAME.match(self.text, self.pos)
                if m is None:
                    raise self.fail("expected a sub-attribute name after ']'")
                self.pos = m.end()
                inner = And(inner, self.operation(AttrPath(None, m.group())))
            return ValuePath(path, inner)
        return self.operation(path)

    def bracket(self) -> Filter:
        self.pos += 1
        self.enter()
        inner = self.disjunction(in_value=True)
        self.expect("]")
        self.depth -= 1
        return inner

    def operation(self, path: AttrPath) -> Filter:
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise self.fail(f"more than {MAX_TERMS} comparisons")
        self.skip_space()
        m = _WORD.match(self.text, self.pos)
        if m is None:
            raise self.fail(f"expected an operator after '{format_path(path)}'")
        op = m.group().lower()
        if op == "pr":
            self.pos = m.end()
            return Present(path)
        if op not in COMPARE_OPS:
            raise self.fail(f"the operator '{m.group()[:20]}' is not supported")
        self.pos = m.end()
        return Compare(path, op, self.value())  # type: ignore[arg-type]  # checked above

    def value(self) -> CompValue:
        char = self.peek()
        if char == '"':
            return self.string()
        if char == "-" or char.isdigit():
            return self.number()
        m = _WORD.match(self.text, self.pos)
        if m is not None and m.group().lower() in _LITERALS:
            self.pos = m.end()
            return _LITERALS[m.group().lower()]
        raise self.fail("expected a value (a JSON string, number, true, false or null)")

    def string(self) -> str:
        m = _STRING.match(self.text, self.pos)
        if m is None:
            raise self.fail("unterminated string")
        try:
            value = json.loads(m.group())
        except ValueError:
            raise self.fail("invalid string (bad escape or control character)") from None
        if not isinstance(value, str) or "\x00" in value:
            raise self.fail("invalid string (NUL character)")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise self.fail("invalid string (unpaired surrogate)") from None
        self.pos = m.end()
        return value

    def number(self) -> int | float:
        m = _NUMBER.match(self.text, self.pos)
        if m is None:
            raise self.fail("invalid number")
        token = m.group()
        try:
            value: int | float = float(token) if any(c in token for c in ".eE") else int(token)
        except ValueError:
            raise self.fail("invalid number") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail("number out of range")
        self.pos = m.end()
        return value


def parse_filter(text: str) -> Filter:
    """The filter ``text`` as a tree; ScimError 400 ``invalidFilter`` naming the problem."""
    parser = _Parser(text, "invalidFilter")
    if not text.strip():
        raise ScimError(400, "the filter is empty", "invalidFilter")
    result = parser.disjunction(in_value=False)
    parser.at_end()
    return result


def parse_patch_path(text: str) -> PatchPath:
    """A PATCH ``path`` (RFC 7644 §3.5.2: ``attrPath / valuePath [subAttr]``);
    ScimError 400 ``invalidPath`` naming the problem."""
    parser = _Parser(text, "invalidPath")
    if not text.strip():
        raise ScimError(400, "the path is empty", "invalidPath")
    path = parser.attr_path(in_value=False)
    value_filter: Filter | None = None
    sub: str | None = None
    if parser.text.startswith("[", parser.pos):
        if path.sub_attribute is not None:
            raise parser.fail(f"'{format_path(path)}' has a sub-attribute before '['")
        value_filter = parser.bracket()
        if parser.text.startswith(".", parser.pos):
            parser.pos += 1
            m = _NAME.match(parser.text, parser.pos)
            if m is None:
                raise parser.fail("expected a sub-attribute name after ']'")
            sub = m.group()
            parser.pos = m.end()
    parser.at_end()
    return PatchPath(path, value_filter, sub)


def parse_attr_path(text: str) -> AttrPath:
    """A bare ``[urn:]name[.sub]`` (``attributes``, ``sortBy``); ScimError ``invalidPath``."""
    parser = _Parser(text, "invalidPath")
    path = parser.attr_path(in_value=False)
    parser.at_end()
    return path


# --- printing --------------------------------------------------------------------------


def format_path(path: AttrPath) -> str:
    """``urn:attribute.sub`` as written."""
    text = path.attribute if path.urn is None else f"{path.urn}:{path.attribute}"
    return text if path.sub_attribute is None else f"{text}.{path.sub_attribute}"


def format_filter(f: Filter) -> str:
    """The filter as text that :func:`parse_filter` reads back to an equal tree."""
    if isinstance(f, Compare):
        return f"{format_path(f.path)} {f.op} {json.dumps(f.value)}"
    if isinstance(f, Present):
        return f"{format_path(f.path)} pr"
    if isinstance(f, Not):
        return f"not ({format_filter(f.inner)})"
    if isinstance(f, ValuePath):
        return f"{format_path(f.path)}[{format_filter(f.filter)}]"
    if isinstance(f, And):
        left, right = format_filter(f.left), format_filter(f.right)
        left = f"({left})" if isinstance(f.left, Or) else left
        right = f"({right})" if isinstance(f.right, And | Or) else right
        return f"{left} and {right}"
    left, right = format_filter(f.left), format_filter(f.right)
    right = f"({right})" if isinstance(f.right, Or) else right
    return f"{left} or {right}"


# --- evaluation ------------------------------------------------------------------------

#: Looks an attribute path up in the current scope: (its definition, its raw value).
_Lookup: TypeAlias = Callable[[AttrPath], tuple[Attribute, Any]]


def value_of(container: Any, name: str) -> Any:
    """``container[name]`` with the name compared case-insensitively (RFC 7643 §2.1)."""
    if not isinstance(container, dict):
        return None
    if name in container:
        return container[name]
    lowered = name.lower()
    return next((v for k, v in container.items() if k.lower() == lowered), None)


def _invalid(detail: str) -> ScimError:
    return ScimError(400, detail, "invalidFilter")


def _top_lookup(document: dict[str, Any], schema: ResourceSchema) -> _Lookup:
    def lookup(path: AttrPath) -> tuple[Attribute, Any]:
        found = schema.resolve(path.urn, path.attribute)
        if found is None:
            name = path.attribute if path.urn is None else f"{path.urn}:{path.attribute}"
            raise _invalid(f"unknown attribute '{name}'")
        holder = document if found.extension is None else value_of(document, found.extension)
        return found.attribute, value_of(holder, found.attribute.name)

    return lookup


def _element_lookup(element: Any, parent: Attribute) -> _Lookup:
    def lookup(path: AttrPath) -> tuple[Attribute, Any]:
        sub = parent.sub(path.attribute)
        if sub is None:
            raise _invalid(f"unknown attribute '{parent.name}.{path.attribute}'")
        return sub, value_of(element, sub.name)

    return lookup


def _items(attribute: Attribute, raw: Any) -> list[Any]:
    if raw is None:
        return []
    if attribute.multi_valued:
        return list(raw) if isinstance(raw, list) else [raw]
    return [raw]


def _present(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_present(v) for v in value.values())
    return value is not None and value not in ("", [])


def _values(path: AttrPath, lookup: _Lookup) -> tuple[Attribute, list[Any]]:
    """The definition compared and the values it has (for a multi-valued one, all)."""
    attribute, raw = lookup(path)
    items = _items(attribute, raw)
    sub_name = path.sub_attribute
    if sub_name is None and attribute.type == "complex":
        if attribute.sub("value") is None:
            raise _invalid(f"'{attribute.name}' is complex: name one of its sub-attributes")
        sub_name = "value"
    if sub_name is None:
        return attribute, items
    if attribute.type != "complex":
        raise _invalid(f"'{attribute.name}' has no sub-attribute '{sub_name}'")
    sub = attribute.sub(sub_name)
    if sub is None:
        raise _invalid(f"unknown attribute '{attribute.name}.{sub_name}'")
    values: list[Any] = []
    for item in items:
        values.extend(_items(sub, value_of(item, sub.name)))
    return sub, values


def parse_datetime(text: str) -> datetime | None:
    """An ISO 8601 / RFC 3339 ``dateTime`` (RFC 7643 §2.3.5), UTC when no offset; None
    when ``text`` is not one."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


_EXPECTED: Final = {
    "string": str,
    "reference": str,
    "binary": str,
    "dateTime": str,
    "boolean": bool,
}


def _check(attribute: Attribute, op: str, value: CompValue) -> None:
    kind = attribute.type
    if kind == "complex":
        raise _invalid(f"'{attribute.name}' is complex: name one of its sub-attributes")
    if kind in ("boolean", "binary") and op not in ("eq", "ne"):
        raise _invalid(f"'{op}' cannot compare '{attribute.name}' ({kind})")
    if op in ("co", "sw", "ew") and kind not in ("string", "reference"):
        raise _invalid(f"'{op}' cannot compare '{attribute.name}' ({kind})")
    if value is None:
        if op not in ("eq", "ne"):
            raise _invalid(f"'{op}' cannot compare with null")
        return
    if kind in ("integer", "decimal"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if ok and kind == "integer" and isinstance(value, float) and not value.is_integer():
            ok = False
    else:
        ok = isinstance(value, _EXPECTED[kind])
    if not ok:
        raise _invalid(f"'{attribute.name}' is {kind}: {json.dumps(value)} is not one")
    if kind == "dateTime" and parse_datetime(str(value)) is None:
        raise _invalid(f"'{attribute.name}': {json.dumps(value)} is not an ISO 8601 dateTime")


_OPERATORS: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "eq": lambda a, b: bool(a == b),
    "co": lambda a, b: bool(b in a),
    "sw": lambda a, b: bool(a.startswith(b)),
    "ew": lambda a, b: bool(a.endswith(b)),
    "gt": lambda a, b: bool(a > b),
    "ge": lambda a, b: bool(a >= b),
    "lt": lambda a, b: bool(a < b),
    "le": lambda a, b: bool(a <= b),
}


def _comparable(attribute: Attribute, actual: Any, expected: CompValue) -> tuple[Any, Any] | None:
    """``(actual, expected)`` made comparable for the attribute's type, or None when the
    stored value is not of that type (it then matches nothing)."""
    kind = attribute.type
    if kind == "dateTime":
        a = parse_datetime(actual) if isinstance(actual, str) else None
        return None if a is None else (a, parse_datetime(str(expected)))
    if kind == "boolean":
        return (actual, expected) if isinstance(actual, bool) else None
    if kind in ("integer", "decimal"):
        number = isinstance(actual, int | float) and not isinstance(actual, bool)
        return (actual, expected) if number else None
    if not isinstance(actual, str):
        return None
    if attribute.case_exact:
        return actual, str(expected)
    return actual.lower(), str(expected).lower()


def _compare(f: Compare, lookup: _Lookup) -> bool:
    attribute, values = _values(f.path, lookup)
    _check(attribute, f.op, f.value)
    present = [v for v in values if _present(v)]
    if f.value is None:
        return bool(present) == (f.op == "ne")
    op = "eq" if f.op == "ne" else f.op
    hit = False
    for value in present:
        pair = _comparable(attribute, value, f.value)
        if pair is not None and _OPERATORS[op](*pair):
            hit = True
            break
    return not hit if f.op == "ne" else hit


def _is_present(path: AttrPath, lookup: _Lookup) -> bool:
    if path.sub_attribute is None:
        attribute, raw = lookup(path)
        return any(_present(v) for v in _items(attribute, raw))
    return any(_present(v) for v in _values(path, lookup)[1])


def _evaluate(f: Filter, lookup: _Lookup) -> bool:
    if isinstance(f, And):
        return _evaluate(f.left, lookup) and _evaluate(f.right, lookup)
    if isinstance(f, Or):
        return _evaluate(f.left, lookup) or _evaluate(f.right, lookup)
    if isinstance(f, Not):
        return not _evaluate(f.inner, lookup)
    if isinstance(f, Present):
        return _is_present(f.path, lookup)
    if isinstance(f, ValuePath):
        attribute, raw = lookup(f.path)
        if attribute.type != "complex":
            raise _invalid(f"'{attribute.name}' is not complex: '[ ]' needs sub-attributes")
        items = [i for i in _items(attribute, raw) if isinstance(i, dict)]
        return any(_evaluate(f.filter, _element_lookup(i, attribute)) for i in items)
    return _compare(f, lookup)


def matches(f: Filter, document: dict[str, Any], schema: ResourceSchema) -> bool:
    """Whether the SCIM ``document`` satisfies ``f`` (RFC 7644 §3.4.2.2). An attribute no
    schema defines, or an operator its type does not allow, is ScimError ``invalidFilter``."""
    return _evaluate(f, _top_lookup(document, schema))


def matches_element(f: Filter, element: dict[str, Any], parent: Attribute) -> bool:
    """Whether one value of the complex attribute ``parent`` satisfies the value filter
    ``f`` (the part inside ``[ ]``, whose paths name ``parent``'s sub-attributes)."""
    return _evaluate(f, _element_lookup(element, parent))
