"""Error messages of the command line: one line, of bounded length.

An error's text can carry data (a column name, a label, the names of thousands of design
columns): the collinearity error of a wide tensor spline was one line of 52 MB (issue 41). The
messages are built with bounded lists where they are raised; :func:`one_line` is the last guard
of what the command line prints: whitespace collapsed to single spaces, at most
:data:`MAX_MESSAGE_CHARS` characters, the cut said so.
"""

from __future__ import annotations

__all__ = ["MAX_MESSAGE_CHARS", "one_line"]

#: longest error message the command line prints (characters); the rest is cut
MAX_MESSAGE_CHARS = 2_000


def one_line(message: object, limit: int | None = None) -> str:
    """``message`` (an exception or text) as one line of at most ``limit`` characters
    (default :data:`MAX_MESSAGE_CHARS`).

    Examples
    --------
    >>> one_line(ValueError("a\\n  b"))
    'a b'
    >>> one_line("x" * 5000, limit=60)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxx... (5,000 characters, cut to 60)'
    """
    limit = MAX_MESSAGE_CHARS if limit is None else limit
    text = str(message)
    if len(text) > 4 * limit:  # split() of a 52 MB line costs its size again: cut first
        total = len(text)
        text = text[: 4 * limit]
    else:
        total = None
    text = " ".join(text.split())
    total = len(text) if total is None else total
    if len(text) <= limit and total == len(text):
        return text
    tail = f"... ({total:,} characters, cut to {limit:,})"
    return text[: max(0, limit - len(tail))] + tail
