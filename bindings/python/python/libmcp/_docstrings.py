"""Descriptions from docstrings: the text before any section, and each
parameter's description (Google, NumPy or Sphinx style)."""

from __future__ import annotations

import inspect
import re
from typing import Dict, List, Optional, Tuple

__all__ = ["parse_docstring"]

_GOOGLE_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns?|Yields?|Raises|Examples?|Notes?|Attributes|See Also|Warnings?|Todo|References)\s*:\s*$"
)
_NUMPY_RULE = re.compile(r"^-{3,}\s*$")
_PARAM_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments", "other parameters"}
_GOOGLE_ENTRY = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ENTRY = re.compile(r"^(\*{0,2}\w+)\s*(:.*)?$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_SPHINX_FIELD = re.compile(r"^:\w+")


def parse_docstring(doc: Optional[str]) -> Tuple[Optional[str], Dict[str, str]]:
    """Splits a docstring (Google, NumPy or Sphinx style) into the
    description (the text before any section) and the parameters'
    descriptions."""
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    description: List[str] = []
    params: Dict[str, str] = {}
    i = 0
    in_description = True
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        google = _GOOGLE_SECTION.match(stripped)
        numpy = i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1].strip()) and stripped
        sphinx = _SPHINX_FIELD.match(stripped)
        if google or numpy:
            in_description = False
            title = (google.group(1) if google else stripped).lower()
            i += 1 if google else 2
            body: List[str] = []
            while i < len(lines):
                nxt = lines[i]
                if nxt.strip() and not nxt.startswith((" ", "\t")) and (
                    _GOOGLE_SECTION.match(nxt.strip())
                    or (i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1].strip()))
                    or _SPHINX_FIELD.match(nxt.strip())
                ):
                    break
                if google and nxt.strip() and not nxt.startswith((" ", "\t")):
                    break
                body.append(nxt)
                i += 1
            if title in _PARAM_SECTIONS:
                params.update(_section_params(body, numpy_style=not google))
            continue
        if sphinx:
            in_description = False
            match = _SPHINX_PARAM.match(stripped)
            i += 1
            text = [match.group(2)] if match else []
            while i < len(lines) and lines[i].startswith((" ", "\t")) and lines[i].strip():
                text.append(lines[i].strip())
                i += 1
            if match:
                params[match.group(1)] = " ".join(t for t in text if t)
            continue
        if in_description:
            description.append(line)
        i += 1
    summary = "\n".join(description).strip()
    return (summary or None), params


def _section_params(body: List[str], numpy_style: bool) -> Dict[str, str]:
    params: Dict[str, str] = {}
    indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
    if not indents:
        return params
    base = min(indents)
    current: Optional[str] = None
    text: List[str] = []

    def flush() -> None:
        if current is not None:
            params[current.lstrip("*")] = " ".join(t for t in text if t).strip()

    for line in body:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if indent == base:
            entry = (_NUMPY_ENTRY if numpy_style else _GOOGLE_ENTRY).match(stripped)
            if entry:
                flush()
                current = entry.group(1)
                text = [] if numpy_style else [entry.group(3)]
                continue
        text.append(stripped)
    flush()
    return params
