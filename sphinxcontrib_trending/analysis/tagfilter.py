"""Tag filter expressions such as ``mrr and (1t1c or 2t1c) and not *vhost*``.

Dashboards and degradation strategies select tests by their tags with the same
small language, so it lives here once.  Expressions come from conf.py and the
command line, which makes them untrusted text: they are tokenized and parsed
by a recursive-descent parser into a tree of closures, never evaluated as
Python.

Grammar (keywords are case-insensitive)::

    expression := term ("or" term)*
    term       := factor ("and" factor)*
    factor     := "not" factor | "(" expression ")" | PATTERN

``not`` binds tighter than ``and``, which binds tighter than ``or``.  A
PATTERN is any run of characters other than white space and parentheses; it
is a shell-style glob (``*``, ``?``, ``[...]``) and is true when at least one
of the test's tags matches it, ignoring case.  The directives add a test's
dimensions to its tags as ``nic=10ge2p1x710``-style labels, so
``nic=*e810* and cores=2t1c`` needs nothing more from the grammar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase

TagPredicate = Callable[[frozenset[str]], bool]
"""A compiled node: takes the lower-cased tags of one test."""

_KEYWORDS = frozenset({"and", "or", "not"})


class FilterError(ValueError):
    """A malformed tag filter; ``position`` is the 0-based character offset."""

    def __init__(self, expression: str, position: int, problem: str) -> None:
        self.expression = expression
        self.position = position
        self.problem = problem
        pointer = " " * position + "^"
        super().__init__(
            f"malformed tag filter at position {position}: {problem}\n  {expression}\n  {pointer}"
        )


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    """``(``, ``)``, ``and``, ``or``, ``not``, ``pattern`` or ``end``."""
    text: str
    position: int


def _tokenize(expression: str) -> Iterator[_Token]:
    index = 0
    length = len(expression)
    while index < length:
        char = expression[index]
        if char.isspace():
            index += 1
        elif char in "()":
            yield _Token(char, char, index)
            index += 1
        else:
            start = index
            while (
                index < length and not expression[index].isspace() and expression[index] not in "()"
            ):
                index += 1
            word = expression[start:index]
            kind = word.lower() if word.lower() in _KEYWORDS else "pattern"
            yield _Token(kind, word, start)
    yield _Token("end", "", length)


def _describe(token: _Token) -> str:
    return "the end of the expression" if token.kind == "end" else repr(token.text)


class _Parser:
    """Recursive descent over the token list, one method per grammar rule."""

    def __init__(self, expression: str) -> None:
        self._expression = expression
        self._tokens = list(_tokenize(expression))
        self._index = 0

    def parse(self) -> TagPredicate:
        if self._peek().kind == "end":
            raise FilterError(self._expression, 0, "the expression is empty")
        predicate = self._expression_rule()
        token = self._peek()
        if token.kind != "end":
            expected = "'and', 'or' or the end of the expression"
            if token.kind == ")":
                expected = "'and', 'or' or the end (this ')' closes nothing)"
            raise self._error(token, f"expected {expected}, found {_describe(token)}")
        return predicate

    def _peek(self) -> _Token:
        return self._tokens[self._index]

    def _advance(self) -> _Token:
        token = self._tokens[self._index]
        self._index += 1
        return token

    def _error(self, token: _Token, problem: str) -> FilterError:
        return FilterError(self._expression, token.position, problem)

    def _expression_rule(self) -> TagPredicate:
        return self._chain("or", self._term, any)

    def _term(self) -> TagPredicate:
        return self._chain("and", self._factor, all)

    def _chain(
        self,
        keyword: str,
        operand_rule: Callable[[], TagPredicate],
        combine: Callable[[Iterable[bool]], bool],
    ) -> TagPredicate:
        """``operand (keyword operand)*``, short-circuiting like Python's any/all."""
        operands = [operand_rule()]
        while self._peek().kind == keyword:
            self._advance()
            operands.append(operand_rule())
        if len(operands) == 1:
            return operands[0]
        return lambda tags: combine(operand(tags) for operand in operands)

    def _factor(self) -> TagPredicate:
        token = self._advance()
        if token.kind == "not":
            operand = self._factor()
            return lambda tags: not operand(tags)
        if token.kind == "(":
            inner = self._expression_rule()
            closing = self._advance()
            if closing.kind != ")":
                raise self._error(
                    closing,
                    f"expected ')' to close the '(' at position {token.position}, "
                    f"found {_describe(closing)}",
                )
            return inner
        if token.kind == "pattern":
            return _pattern_predicate(token.text)
        raise self._error(token, f"expected a tag pattern, 'not' or '(', found {_describe(token)}")


def _pattern_predicate(pattern: str) -> TagPredicate:
    lowered = pattern.lower()
    if not any(char in lowered for char in "*?["):
        return lambda tags: lowered in tags
    return lambda tags: any(fnmatchcase(tag, lowered) for tag in tags)


def compile_filter(expression: str) -> Callable[[Iterable[str]], bool]:
    """Compile ``expression`` once into a predicate over a test's tags.

    Raises :class:`FilterError` (a :class:`ValueError`) naming the position of
    the first problem, so a typo in conf.py is reported before any page is
    rendered.
    """
    predicate = _Parser(expression).parse()

    def matches(tags: Iterable[str]) -> bool:
        return predicate(frozenset(tag.lower() for tag in tags))

    return matches
