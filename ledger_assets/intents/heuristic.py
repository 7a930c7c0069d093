"""The keyless analyser: an intent from what the chunk says about itself.

identifiers + signature + doc comment + enclosing type -> one sentence, plus a
layer and a pattern from the path and the naming conventions. No model, no
network, deterministic: what a reader skimming the declaration would write.

It exists because the design lane embeds "[repo/layer] intent": with the
neutral placeholder every chunk of a repo has the same design text, so that
lane ranks nothing. Measured on the fixture golden set
(benchmarks/design_lane_eval.py) the heuristic lifts it from chance to useful;
that is why it is the keyless default (LEDGER_KEYLESS_ANALYSER=heuristic).
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath

from chunkers.paths import has_test_mark
from ledger_assets.encode.lexical import words
from ledger_assets.intents.groq_analyser import Analysis

HEURISTIC_VERSION = "heuristic-2"
MAX_INTENT_CHARS = 300

_TAG = re.compile(r"<[^>]+>")
# /// <summary> (C#), /** */ (Java, TS, PHP, Kotlin), """docstring""" (Python), # and -- and // line comments.
_DOC_PATTERNS = (
    re.compile(r"((?:^[ \t]*///.*\n?)+)", re.M),
    re.compile(r"/\*\*(.*?)\*/", re.S),
    re.compile(r"^[ \t]*(?:\"\"\"|''')(.*?)(?:\"\"\"|''')", re.S | re.M),
    re.compile(r"((?:^[ \t]*(?://|#(?![!#])|--)[^\n]*\n?)+)", re.M),
)
_SIGNATURE_KINDS = {"method", "function", "constructor", "procedure", "operation", "func", "def"}
_TYPE_KINDS = {"class", "interface", "struct", "record", "enum", "trait", "type", "module", "object",
               "protocol", "impl", "table", "view", "schema", "component"}

# Path segments and name suffixes -> layer; first match wins, most specific first.
_LAYER_BY_SEGMENT = (
    ("test", ("test", "tests", "spec", "specs", "__tests__", "testing", "unittests", "integrationtests")),
    ("docs", ("docs", "doc", "documentation")),
    ("build", ("build", "scripts", "ci", ".github", "tools", "deploy", "eng")),
    ("api", ("controllers", "api", "apis", "endpoints", "routes", "handlers", "grpc", "graphql")),
    ("presentation", ("views", "pages", "components", "ui", "shared", "wwwroot", "frontend", "layouts",
                      "viewmodels", "templates", "widgets")),
    ("data", ("repositories", "repository", "data", "dal", "persistence", "migrations", "db", "database",
              "dataaccess", "sql", "storage", "stores")),
    ("infrastructure", ("infrastructure", "infra", "adapters", "clients", "integrations", "messaging",
                        "external", "gateways")),
    ("application", ("services", "application", "usecases", "commands", "queries", "features", "jobs",
                     "workers")),
    ("domain", ("domain", "entities", "models", "model", "core", "aggregates", "valueobjects")),
    ("config", ("config", "configuration", "settings")),
)
_LAYER_BY_SUFFIX = (
    ("test", ("Test", "Tests", "Spec", "Fixture")),
    ("api", ("Controller", "Endpoint", "Endpoints", "Hub", "Resource")),
    ("presentation", ("View", "Page", "Component", "ViewModel", "Presenter", "Layout", "Widget", "Form")),
    ("data", ("Repository", "Repo", "Dao", "DbContext", "Store", "Migration", "Mapper", "Query")),
    ("infrastructure", ("Client", "Adapter", "Gateway", "Proxy", "Publisher", "Consumer", "Cache")),
    ("application", ("Service", "Handler", "UseCase", "Manager", "Processor", "Worker", "Job", "Command")),
    ("config", ("Options", "Settings", "Config", "Configuration", "Startup", "Module")),
)
_LAYER_BY_CHUNK_TYPE = {
    "config": "config", "md_section": "docs", "pdf_pages": "docs", "openapi_operation": "api",
    "openapi_schema": "api", "sql_table": "data", "sql_proc": "data", "razor_markup": "presentation",
    "razor_code": "presentation",
}
_LAYER_BY_EXT = {".md": "docs", ".rst": "docs", ".txt": "docs", ".pdf": "docs", ".sql": "data",
                 ".razor": "presentation", ".cshtml": "presentation", ".vue": "presentation",
                 ".svelte": "presentation", ".tsx": "presentation", ".jsx": "presentation",
                 ".html": "presentation", ".css": "presentation", ".scss": "presentation"}
_PATTERN_BY_SUFFIX = (
    ("repository", ("Repository", "Repo", "Dao")), ("factory", ("Factory",)), ("builder", ("Builder",)),
    ("controller", ("Controller",)), ("service", ("Service",)), ("handler", ("Handler",)),
    ("middleware", ("Middleware",)), ("validator", ("Validator",)), ("adapter", ("Adapter",)),
    ("strategy", ("Strategy", "Policy")), ("observer", ("Observer", "Listener", "Subscriber")),
    ("decorator", ("Decorator", "Wrapper")), ("singleton", ("Singleton",)), ("cache", ("Cache",)),
    ("options", ("Options", "Settings", "Config")), ("dto", ("Dto", "DTO", "Request", "Response")),
    ("extension methods", ("Extensions",)), ("visitor", ("Visitor",)), ("command", ("Command",)),
    ("event", ("Event", "EventArgs")), ("exception", ("Exception", "Error")), ("test", ("Test", "Tests")),
)
_PATTERN_BY_CHUNK_TYPE = {"config": "configuration", "sql_table": "table", "sql_proc": "stored procedure",
                          "openapi_operation": "http endpoint", "openapi_schema": "schema"}


_KIND_LABELS = {"sql_table": "table", "table": "table", "openapi_operation": "API operation",
                "operation": "API operation", "openapi_schema": "API schema", "proc": "stored procedure",
                "procedure": "stored procedure", "func": "function", "def": "function",
                "sql_function": "SQL function", "sql_view": "SQL view", "sql_procedure": "stored procedure",
                "sql_table": "table", "openapi_operation_id": "API operation"}
_SUMMARY_LINE = re.compile(r"^\s*\"?(?:summary|description|title)\"?\s*[:=]\s*\"?([^\n\"]{8,200})", re.M | re.I)
# Languages that write a parameter's name before its type without a colon.
_NAME_FIRST_EXT = {".go", ".sql"}


def _first_sentence(doc: str) -> str:
    lines = []
    for line in doc.splitlines():
        line = re.sub(r"^\s*(?://[/!]?|\*+|#+|--)\s?", "", line).strip()
        if line.startswith(("@", ":param", ":return", ":raises", "Args:", "Returns:", "Raises:")):
            break
        if line:
            lines.append(line)
        elif lines:
            break
    text = _TAG.sub(" ", " ".join(lines))
    text = " ".join(text.split()).strip()
    match = re.match(r"(.+?[.!?])(?:\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence[:200].rstrip()


def doc_comment(body: str, near_line: str = "") -> str:
    """The first doc sentence of the chunk: the one just above (or just inside) `near_line` when found."""
    text = body
    if near_line:
        pos = body.find(near_line)
        if pos > 0:
            # The doc sits above the declaration (C#, Java, JS) or right below it (Python).
            above = body[:pos].rstrip("\n").split("\n")[-12:]
            below = body[pos:].split("\n")[1:8]
            text = "\n".join(above) + "\n" + near_line + "\n" + "\n".join(below)
    candidates = []
    for pattern in _DOC_PATTERNS:
        for m in pattern.finditer(text):
            sentence = _first_sentence(m.group(1))
            if len(sentence) >= 8 and not _looks_like_code(sentence):
                candidates.append((m.start(), sentence))
                break
    if not candidates:
        return ""
    return min(candidates)[1]


def _looks_like_code(s: str) -> bool:
    return bool(re.search(r"[;{}]\s*$|^\s*(using|import|from|namespace|package)\b|^[-=*#\s]+$", s)) \
        or s.lower().startswith(("todo", "fixme", "region", "endregion", "pylint", "noqa", "eslint",
                                 "<auto-generated", "copyright", "license", "-*-",
                                 # tools' directives, not prose about the code
                                 "resharper", "noinspection", "nolint", "prettier-ignore", "istanbul ignore",
                                 "@ts-", "type: ignore", "nosec"))


# Words that declare the name after them, and what follows a declared name.
_DECL_WORDS = r"(?:class|struct|interface|record|enum|def|function|func|fn|procedure|table|view|trait|type)"
# (a lookahead, so that `class type Foo` is read at `type` too)
_DECL_KEYWORD = re.compile(r"\b(?=" + _DECL_WORDS + r"\s+(\S*))", re.I)
_WORD = re.compile(r"\w+")
_DECL_AFTER_NAME = re.compile(r"\s*[(<\[:=]")


def _declaration_line(body: str, name: str) -> str:
    """The first line that declares `name`: the name before `(`, `<`, `[`, `:` or `=`, or in the word after a
    declaring keyword (`class`, `def`, `table`, ...), any case. An ASCII name of word characters on an ASCII line
    is matched by scans compiled once (a pattern per name cost a compile per chunk); else by the name's pattern."""
    fast = name.isascii() and _WORD.fullmatch(name) is not None
    low = name.lower()
    for line in body.splitlines():
        if fast and line.isascii():
            if low not in line.lower():
                continue
            if any(w.group().lower() == low and _DECL_AFTER_NAME.match(line, w.end()) for w in _WORD.finditer(line)):
                return line
            if any(w.group().lower() == low for m in _DECL_KEYWORD.finditer(line) for w in _WORD.finditer(m.group(1))):
                return line
        elif re.search(rf"\b{re.escape(name)}\b{_DECL_AFTER_NAME.pattern}|\b{_DECL_WORDS}\s+\S*\b{re.escape(name)}\b",
                       line, re.I):
            return line
    return ""


_PARENS = re.compile(r"\((.*)\)")
_AFTER_NAME_PARENS = re.compile(r"\s*(?:<[^()]*>)?\s*\((.*)\)")


def _parameters_after(decl: str, name: str) -> re.Match[str] | None:
    """The parentheses after `name` (its generic arguments between): scans compiled once for a name of word
    characters, else the name's own pattern."""
    if _WORD.fullmatch(name) is None:
        return re.search(rf"\b{re.escape(name)}{_AFTER_NAME_PARENS.pattern}", decl)
    if name not in decl:
        return None
    return next((m for w in _WORD.finditer(decl) if w.group() == name
                 for m in [_AFTER_NAME_PARENS.match(decl, w.end())] if m), None)


def _parameters(decl: str, name: str, name_first: bool = False) -> list[str]:
    # The parentheses after the name: a Go receiver `func (b *Bucket) Allow()` comes before it.
    m = _parameters_after(decl, name) or _PARENS.search(decl)
    if not m:
        return []
    names = []
    for raw in re.split(r",(?![^<\[(]*[>\])])", m.group(1)):
        raw = re.sub(r"=.*$", "", raw).strip()
        raw = re.sub(r":.*$", "", raw).strip() if ":" in raw and not raw.startswith("@") else raw
        tokens = [t for t in re.findall(r"[A-Za-z_$][\w$]*", raw) if t not in {"ref", "out", "in", "params", "final"}]
        if not tokens:
            continue
        token = tokens[0] if name_first else tokens[-1]
        if token not in {"self", "cls", "this"}:
            names.append(words(token))
    return [n for n in names if n][:6]


def _parent_type(parent: str) -> str:
    last = re.split(r"[.:/\\]", parent)[-1] if parent else ""
    return last


def classify_layer(file_path: str, chunk_type: str, names: list[str]) -> str:
    if chunk_type in _LAYER_BY_CHUNK_TYPE:
        return _LAYER_BY_CHUNK_TYPE[chunk_type]
    path = PurePosixPath(file_path.replace("\\", "/"))
    stem = path.name.split(".")[0]
    segments = [s.lower() for s in path.parts[:-1]]
    low_name = path.name.lower()
    if has_test_mark(low_name):
        return "test"
    for layer, suffixes in _LAYER_BY_SUFFIX:
        if any(n.endswith(suffixes) for n in [stem, *names] if n):
            return layer
    for layer, marks in _LAYER_BY_SEGMENT:
        if any(seg in marks for seg in segments):
            return layer
    if path.suffix.lower() in _LAYER_BY_EXT:
        return _LAYER_BY_EXT[path.suffix.lower()]
    return "other"


def classify_pattern(chunk_type: str, names: list[str]) -> str:
    if chunk_type in _PATTERN_BY_CHUNK_TYPE:
        return _PATTERN_BY_CHUNK_TYPE[chunk_type]
    for pattern, suffixes in _PATTERN_BY_SUFFIX:
        if any(n.endswith(suffixes) for n in names if n):
            return pattern
    return ""


def _primary(symbols: list[dict], chunk_type: str) -> dict | None:
    if not symbols:
        return None
    if chunk_type in ("cs_class", "cs_class_full", "py_class", "cs_file", "ts_file"):
        for s in symbols:
            if s.get("kind") in _TYPE_KINDS:
                return s
    return symbols[0]


def analyse_chunk(chunk: dict) -> Analysis:
    """chunk: file_path, chunk_type, text, header, symbols (list of dicts or JSON)."""
    symbols = chunk.get("symbols") or []
    if isinstance(symbols, str):
        symbols = json.loads(symbols or "[]")
    chunk_type = chunk.get("chunk_type", "")
    file_path = chunk.get("file_path", "")
    text = chunk.get("text") or ""
    header = chunk.get("header") or ""
    body = text[len(header):] if header and text.startswith(header) else text
    primary = _primary(symbols, chunk_type)
    type_names = [_parent_type(s.get("parent", "")) for s in symbols[:3]] + \
                 [s["name"] for s in symbols[:3] if s.get("kind") in _TYPE_KINDS]
    layer = classify_layer(file_path, chunk_type, [n for n in type_names if n])
    pattern = classify_pattern(chunk_type, [n for n in type_names if n])
    file_words = words(PurePosixPath(file_path).stem)

    if chunk_type == "config":
        sections = list(dict.fromkeys(words(s["name"]) for s in symbols if s.get("name")))[:6]
        about = ", ".join(sections) if sections else file_words
        intent = f"Configuration of {about} in {PurePosixPath(file_path).name}."
    elif chunk_type in ("md_section", "pdf_pages", "plain") or primary is None:
        title = next((ln.lstrip("# ").strip() for ln in body.splitlines() if ln.strip().startswith("#")), "")
        doc = doc_comment(body) if chunk_type not in ("md_section", "pdf_pages", "plain") else \
            _first_sentence(next((p for p in re.split(r"\n\s*\n", body) if p.strip() and not p.lstrip().startswith("#")), ""))
        lead = f"{title}" if title else f"{file_words} ({chunk_type.replace('_', ' ')})"
        intent = f"{lead}: {doc}" if doc else f"{lead}."
    else:
        name = primary.get("name", "")
        kind = primary.get("kind", "") or chunk_type.split("_")[-1]
        kind_label = _KIND_LABELS.get(kind, kind.replace("_", " "))
        parent = _parent_type(primary.get("parent", ""))
        if parent.isdigit() or parent in ("paths", "schemas", "components", "definitions"):
            parent = ""
        decl = _declaration_line(body, name) if name else ""
        doc = doc_comment(body, decl)
        if not doc and chunk_type.startswith("openapi"):
            m = _SUMMARY_LINE.search(body)
            doc = _first_sentence(m.group(1)) if m else ""
        subject = f"{kind_label} {words(name) or name}"
        if parent and kind not in _TYPE_KINDS:
            subject += f" of {words(parent)}"
        intent = subject[0].upper() + subject[1:]
        intent += f": {doc}" if doc else "."
        params = _parameters(decl, name, PurePosixPath(file_path).suffix.lower() in _NAME_FIRST_EXT) if kind in _SIGNATURE_KINDS or chunk_type.endswith(("member", "function")) else []
        if params:
            intent += f" Takes {', '.join(params)}."
        if kind in _TYPE_KINDS:
            members = [words(s["name"]) for s in symbols[1:] if s.get("kind") in _SIGNATURE_KINDS][:6]
            if members:
                intent += f" Members: {', '.join(members)}."
    intent = " ".join(intent.split())
    if len(intent) > MAX_INTENT_CHARS:
        intent = intent[:MAX_INTENT_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return Analysis(intent=intent, layer=layer, pattern=pattern)
