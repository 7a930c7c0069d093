"""Configuration files: flattened key paths, redacted, with the line each came from.

JSON (comments and trailing commas tolerated, as in appsettings.json), YAML
(all documents), TOML, INI/.cfg, .env, .properties and XML settings (.config,
MSBuild projects, props and targets, .nuspec, .resx resources) all become one
list of entries `L12 Logging:LogLevel:Default = Warning`. The chunk text is
built from those entries only, never from the raw lines, and every value
passes `redact_value` on the way in: a secret-shaped key's value, a connection
string's credentials and a URL's user:password never reach a chunk (spec:
"redaction before anything else sees the text"). Base64 data (a .resx image)
is summarised as `[base64 data, N characters]`: it is not searchable text.

One `config` chunk per file, split by `options.config_max_chars` into parts
whose line ranges are contiguous and together cover the whole file. A file
that does not parse still gives chunks: key = value pairs are pulled out line
by line (indentation gives the nesting) and the reason is kept in the notes.
"""

from __future__ import annotations

import contextlib
import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple
from xml.parsers import expat

import yaml

from .model import DEFAULT_OPTIONS, ChunkOptions, ChunkPiece, ChunkResult, ChunkSymbol
from .redact import REDACTED, cut_redacted, is_secret_key, redact_text, redact_value, values_as_text
from .secret_values import is_benign_value
from .text import LineIndex, split_lines
from .units import NAME_CHARS
from .extensions import extension_of
from .languages import XML_EXTENSIONS

# Past this depth a YAML/JSON tree is flattened no further (a pathological
# document must not recurse the chunker to death); the subtree stays one entry.
MAX_DEPTH = 64


@dataclass(frozen=True)
class ConfigEntry:
    line: int
    key: str
    value: str
    top: str = ""  # top-level key, for symbols

    def render(self) -> str:
        return f"L{self.line} {self.key} = {self.value}"


# --- a format-neutral tree: (kind, start_line, end_line, payload) -------------
# kind "map": payload [(key, key_line, child)], "seq": [child], "scalar": value.
Node = tuple[str, int, int, Any]


def render_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    text = str(value)
    if any(c in text for c in "\n\r\t"):
        return json.dumps(text, ensure_ascii=False)[1:-1]
    return text


def _pair_name(payload: list[tuple[Any, int, Node]]) -> str:
    """A name/value pair's name (`{name: DB_PASSWORD, value: …}` in a Kubernetes env, `{"Key": "Name", "Value": …}`
    in tags, `{"key": "Bundle-DocURL", "value": …}` in an SBOM): the key a map's `value` is judged under, and itself
    a name, not a value; "" where the map is no such pair."""
    keys = {str(k).lower(): child for k, _, child in payload}
    if "value" not in keys:
        # a label's key in a selector or a toleration (`{key: app, operator: In, values: […]}`): a name, no value
        key = keys.get("key")
        if key is not None and key[0] == "scalar" and ("operator" in keys or "values" in keys or "effect" in keys):
            return str(key[3])
        return ""
    for k in ("key", "name"):
        child = keys.get(k)
        if child is not None and child[0] == "scalar" and isinstance(child[3], str) and child[3].strip():
            return child[3].strip()
    return ""


def flatten_tree(node: Node, prefix: tuple[str, ...] = ()) -> list[ConfigEntry]:
    """Leaf entries of a tree; a value is redacted by its key path before it is rendered."""
    out: list[ConfigEntry] = []
    seen: set[int] = set()  # YAML aliases share nodes: a shared subtree is listed once

    def walk(n: Node, path: tuple[str, ...], line: int, depth: int, rpath: tuple[str, ...] | None = None) -> None:
        # rpath: the key path the value is judged by (path itself, unless a pair renames it); () for a pair's name
        kind, start, _end, payload = n
        key = ":".join(path)
        top = path[0] if path else ""
        rpath = path if rpath is None else rpath
        if kind == "scalar" or depth >= MAX_DEPTH:
            shown = render_scalar(payload) if kind == "scalar" else f"<{kind} nested deeper than {MAX_DEPTH}>"
            value = redact_value(rpath, shown) if rpath else redact_text(shown)
            out.append(ConfigEntry(start or line, key, value, top))
            return
        if id(payload) in seen and payload:
            out.append(ConfigEntry(start or line, key, f"<same as line {start}>", top))
            return
        seen.add(id(payload))
        if not payload:
            out.append(ConfigEntry(start or line, key, "{}" if kind == "map" else "[]", top))
            return
        if kind == "map":
            named = _pair_name(payload)
            for k, kline, child in payload:
                if named and str(k).lower() in ("key", "name"):
                    walk(child, path + (str(k),), kline, depth + 1, ())
                elif named and str(k).lower() == "value":
                    walk(child, path + (str(k),), kline, depth + 1, rpath + (named,))
                else:
                    walk(child, path + (str(k),), kline, depth + 1, rpath + (str(k),))
        else:
            for i, child in enumerate(payload):
                walk(child, path + (str(i),), child[1] or start, depth + 1, rpath + (str(i),))

    walk(node, prefix, node[1], 0)
    return out


# --- JSON: a lenient tokenizer that keeps positions ---------------------------
# Tokens: a string (it may not hold a raw line break), a punctuation mark, a bare word, or a lone `/` or `"`;
# `//` and `/* */` comments are dropped and whitespace between tokens is skipped.
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"', re.S)
_JSON_STRING_RUN = re.compile(r'(?:[^"\\\n]|\\.)*', re.S)  # how far a string that never closes reads
_JSON_OTHER = re.compile(r'[{}\[\],:]|[^\s{}\[\],:"/]+|/')
_JSON_BLANK = re.compile(r"\s*")


_JSON_LITERALS = {"true": True, "false": False, "null": None}


class JsonShapeError(ValueError):
    pass


def _json_tokens(text: str) -> list[tuple[str, int]]:
    """(token, offset) of each token, in time linear in the text. A string or a `/*` that never closes is a lone
    `"` or `/` and what follows is read as tokens again; read by one pattern, each such quote or slash was read on
    to the end of its line or the file, the square of a run of them."""
    tokens: list[tuple[str, int]] = []
    pos, end = 0, len(text)
    no_string_before = -1  # a quote before this, after a string that failed, starts none: the run read the same
    no_close_after = end + 1  # a `/*` at or after this has no `*/` after it
    while (pos := _JSON_BLANK.match(text, pos).end()) < end:
        char = text[pos]
        if char == '"':
            if pos >= no_string_before:
                if m := _JSON_STRING.match(text, pos):
                    tokens.append((m.group(), pos))
                    pos = m.end()
                    continue
                no_string_before = _JSON_STRING_RUN.match(text, pos + 1).end()
            tokens.append(('"', pos))
            pos += 1
        elif text.startswith("//", pos):
            line_end = text.find("\n", pos)
            pos = end if line_end < 0 else line_end
        elif text.startswith("/*", pos) and pos < no_close_after:
            close = text.find("*/", pos + 2)
            if close >= 0:
                pos = close + 2
            else:
                no_close_after = pos
                tokens.append(("/", pos))
                pos += 1
        elif char == "/":
            tokens.append(("/", pos))
            pos += 1
        else:
            m = _JSON_OTHER.match(text, pos)
            tokens.append((m.group(), pos))
            pos = m.end()
    return tokens


def parse_json_tree(text: str) -> Node:
    """A JSON document as a tree with line numbers; comments and trailing
    commas are tolerated (appsettings.json has both), anything else raises."""
    index = LineIndex.of(text)
    tokens = _json_tokens(text)
    pos = 0

    def scalar(tok: str, line: int = 0) -> Any:
        if tok.startswith('"'):
            if len(tok) < 2 or not tok.endswith('"'):
                raise JsonShapeError("unterminated string")
            return tok[1:-1] if "\\" not in tok else json.loads(tok)
        if tok in _JSON_LITERALS:
            return _JSON_LITERALS[tok]
        try:
            return json.loads(tok)
        except ValueError as exc:
            # (the token's position, not its text: a note is shown and stored, and an unquoted token may be a secret)
            raise JsonShapeError(f"bad literal at line {line}") from exc

    def value(depth: int) -> Node:
        nonlocal pos
        if pos >= len(tokens):
            raise JsonShapeError("unexpected end of document")
        tok, off = tokens[pos]
        line = index.line_of(off)
        pos += 1
        if depth > 512:
            raise JsonShapeError("nesting too deep")
        if tok == "{":
            items: list[tuple[str, int, Node]] = []
            while True:
                if pos >= len(tokens):
                    raise JsonShapeError("unclosed object")
                tok, off = tokens[pos]
                if tok == "}":
                    pos += 1
                    return ("map", line, index.line_of(off), items)
                if tok == ",":
                    pos += 1
                    continue
                if not tok.startswith('"'):
                    raise JsonShapeError(f"expected a key at line {index.line_of(off)}")
                key = scalar(tok)
                pos += 1
                if pos >= len(tokens) or tokens[pos][0] != ":":
                    raise JsonShapeError(f"expected ':' at line {index.line_of(off)}")
                pos += 1
                items.append((key, index.line_of(off), value(depth + 1)))
        if tok == "[":
            elems: list[Node] = []
            while True:
                if pos >= len(tokens):
                    raise JsonShapeError("unclosed array")
                tok, off = tokens[pos]
                if tok == "]":
                    pos += 1
                    return ("seq", line, index.line_of(off), elems)
                if tok == ",":
                    pos += 1
                    continue
                elems.append(value(depth + 1))
        if tok in "}]:,":
            raise JsonShapeError(f"unexpected {tok!r} at line {line}")
        return ("scalar", line, index.line_of(off + len(tok) - 1), scalar(tok, line))

    root = value(0)
    if pos != len(tokens):
        raise JsonShapeError(f"trailing content at line {index.line_of(tokens[pos][1])}")
    return root


def tree_to_python(node: Node) -> Any:
    kind, _s, _e, payload = node
    if kind == "map":
        return {k: tree_to_python(c) for k, _l, c in payload}
    if kind == "seq":
        return [tree_to_python(c) for c in payload]
    return payload


# --- YAML: composed nodes keep their marks -----------------------------------
def _yaml_end_line(node: yaml.Node, lines: list[str]) -> int:
    # A block node's end mark sits on the token after it: when that token is
    # the first thing on its line, the node ended on the line before.
    mark = node.end_mark
    text = lines[mark.line] if mark.line < len(lines) else ""
    end = mark.line if mark.column <= len(text) - len(text.lstrip()) else mark.line + 1
    start = node.start_mark.line + 1
    end = max(start, min(end, len(lines)))
    while end > start and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def yaml_node_tree(node: yaml.Node, lines: list[str], memo: dict[int, Node] | None = None) -> Node:
    memo = {} if memo is None else memo
    if id(node) in memo:  # an alias: the same tree object, flattened once
        return memo[id(node)]
    start = node.start_mark.line + 1
    end = _yaml_end_line(node, lines)
    if isinstance(node, yaml.MappingNode):
        items: list[tuple[str, int, Node]] = []
        out: Node = ("map", start, end, items)
        memo[id(node)] = out
        for k, v in node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else f"<{k.tag.rsplit(':', 1)[-1]} key>"
            items.append((key, k.start_mark.line + 1, yaml_node_tree(v, lines, memo)))
        return out
    if isinstance(node, yaml.SequenceNode):
        elems: list[Node] = []
        out = ("seq", start, end, elems)
        memo[id(node)] = out
        elems.extend(yaml_node_tree(v, lines, memo) for v in node.value)
        return out
    return ("scalar", start, end, node.value)


# libyaml composes about ten times faster than the pure-Python parser, with the same marks.
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml_trees(text: str, lines: list[str]) -> list[Node]:
    return [yaml_node_tree(doc, lines) for doc in yaml.compose_all(text, Loader=YAML_LOADER) if doc is not None]


# --- TOML: tomllib for values, a line scan for where each key was written -----
_TOML_KEY = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_TOML_DOTTED = re.compile(rf"^\s*({_TOML_KEY}(?:\s*\.\s*{_TOML_KEY})*)\s*")


def _toml_parts(dotted: str) -> tuple[str, ...]:
    return tuple(p.strip().strip("\"'") for p in re.findall(_TOML_KEY, dotted))


def _toml_locations(lines: list[str]) -> dict[tuple[str, ...], int]:
    where: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    aot: dict[tuple[str, ...], int] = {}
    open_string = ""
    depth = 0
    for no, raw in enumerate(lines, 1):
        if open_string:
            if open_string in raw:
                open_string = ""
            continue
        if depth > 0:
            depth += raw.count("[") + raw.count("{") - raw.count("]") - raw.count("}")
            continue
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith("[["):
            path = _toml_parts(s[2:s.find("]]")] if "]]" in s else s[2:])
            aot[path] = aot.get(path, -1) + 1
            table = path + (str(aot[path]),)
            where.setdefault(path, no)
            where[table] = no
            continue
        if s.startswith("["):
            table = _toml_parts(s[1:s.find("]")] if "]" in s else s[1:])
            where.setdefault(table, no)
            continue
        m = _TOML_DOTTED.match(raw)
        if not m or raw[m.end():m.end() + 1] != "=":
            continue
        where.setdefault(table + _toml_parts(m.group(1)), no)
        rest = raw[m.end() + 1:].strip()
        for q in ('"""', "'''"):
            if rest.startswith(q) and rest.count(q) == 1:
                open_string = q
        if not open_string and rest[:1] in "[{":
            depth = rest.count("[") + rest.count("{") - rest.count("]") - rest.count("}")
    return where


def python_tree(value: Any, path: tuple[str, ...], locate: Callable[[tuple[str, ...]], int]) -> Node:
    line = locate(path)
    if isinstance(value, dict):
        return ("map", line, line, [(str(k), locate(path + (str(k),)), python_tree(v, path + (str(k),), locate))
                                    for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", line, line, [python_tree(v, path + (str(i),), locate) for i, v in enumerate(value)])
    return ("scalar", line, line, value)


def _toml_entries(text: str, lines: list[str]) -> list[ConfigEntry]:
    data = tomllib.loads(text)
    where = _toml_locations(lines)

    def locate(path: tuple[str, ...]) -> int:
        for n in range(len(path), 0, -1):
            if path[:n] in where:
                return where[path[:n]]
        return 1

    return flatten_tree(python_tree(data, (), locate))


# --- line formats: INI/.cfg, .env, .properties ---------------------------------
# A section header is the whole line (a comment may follow): text after it (`[db] host=x`, or the rest of a file
# whose line breaks are lone carriage returns) is read as a pair, never dropped.
_INI_SECTION = re.compile(r"^\s*\[([^\]]*)\][ \t]*(?:[#;].*)?$")
_INI_PAIR = re.compile(r"^\s*([^=:#;\s][^=:]*?)\s*[=:]\s*(.*?)\s*$")


def _ini_entries(lines: list[str]) -> list[ConfigEntry]:
    # (line, key path, the value's lines): a continuation line extends the value before it, which is redacted once,
    # whole, at the end (redacting the value so far again at each line was the square of the run: a test matrix's
    # long `deps`; benchmarks/hostile_files.md, `continued.ini`)
    found: list[tuple[int, tuple[str, ...], list[str]]] = []
    section = ""
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or s[0] in "#;":
            continue
        if raw[:1] in " \t" and found and not _INI_SECTION.match(raw):
            found[-1][2].append(s)
            continue
        m = _INI_SECTION.match(raw)
        if m:
            section = m.group(1).strip()
            continue
        m = _INI_PAIR.match(raw)
        key, value = (m.group(1), m.group(2)) if m else (s, "")
        found.append((no, (section, key) if section else (key,), [value]))
    return [ConfigEntry(no, ":".join(path), redact_value(path, "\\n".join(value)), path[0])
            for no, path, value in found]


_ENV_PAIR = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][\w.-]*)\s*=\s*(.*)$")


def _env_entries(lines: list[str]) -> list[ConfigEntry]:
    out: list[ConfigEntry] = []
    no = 0
    while no < len(lines):
        raw = lines[no]
        no += 1
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        m = _ENV_PAIR.match(raw)
        if not m:
            out.append(ConfigEntry(no, "(line)", redact_text(s)))
            continue
        key, value, first = m.group(1), m.group(2).strip(), no
        quote = value[:1] if value[:1] in "\"'`" else ""
        if quote:
            # A quoted value may run over several lines, each looked at once for the closing quote (the value so far
            # searched again at each line was the square of an unclosed quote's run)
            parts = [value[1:]]
            while quote not in parts[-1] and no < len(lines):
                parts.append(lines[no])
                no += 1
            body = "\n".join(parts)
            value = body[:body.find(quote)] if quote in body else body
        else:
            value = re.sub(r"\s+#.*$", "", value)
        out.append(ConfigEntry(first, key, redact_value((key,), render_scalar(value)), key))
    return out


_PROP_PAIR = re.compile(r"^\s*((?:\\.|[^=:\s])+)\s*(?:[=:]\s*|\s+)?(.*)$")


def _continued(parts: list[str]) -> bool:
    """Do the joined (non-empty) pieces end in one backslash, not an escaped one?"""
    tail = "".join(parts[-3:])[-2:]
    return tail.endswith("\\") and not tail.endswith("\\\\")


def _properties_entries(lines: list[str]) -> list[ConfigEntry]:
    out: list[ConfigEntry] = []
    no = 0
    while no < len(lines):
        raw = lines[no]
        no += 1
        s = raw.strip()
        if not s or s[0] in "#!":
            continue
        first = no
        # A continued line's pieces are joined once: adding each to the text so far was the square of the run
        # (300,000 continuation lines took 6.5 s).
        parts = [s]
        while _continued(parts) and no < len(lines):
            parts[-1] = parts[-1][:-1]
            if not parts[-1]:
                parts.pop()
            if nxt := lines[no].strip():
                parts.append(nxt)
            no += 1
        s = "".join(parts)
        m = _PROP_PAIR.match(s)
        key, value = (m.group(1), m.group(2)) if m else (s, "")
        path = tuple(key.split("."))
        out.append(ConfigEntry(first, key.replace(".", ":"), redact_value(path, value), path[0]))
    return out


# --- XML / .config -----------------------------------------------------------
_NAMING_ATTRS = ("key", "name", "id")
# MSBuild items (`<PackageReference Include="Serilog" Version="3.1.1" />`) are named by the file
# or package they include or update.
_ITEM_ATTRS = ("Include", "Update")


class _Open(NamedTuple):
    """An element being read."""
    path: tuple[str, ...]  # its key path
    line: int
    chunks: list[str]  # its text so far
    rpath: tuple[str, ...]  # the path redaction reads (an MSBuild item's name left out)
    secret: bool  # named like a secret, or inside such an element
    binary: bool  # holds base64 data


_ROOT = _Open((), 0, [], (), False, False)
# Elements whose naming attribute names no key: a package manifest's folder or file (PEAR's `<dir name="Token">`
# names a path), a web framework's action, named for what it does (dvja's Struts `<action
# name="resetPasswordExecute">`), a logging framework's appender or logger, named for what it logs (vault-examples'
# logback `<appender name="VAULT_SECRET">`, `<logger name="…VaultSecretService" level="DEBUG">`: a file's size and a
# level below)
_NAMING_ONLY_TAGS = frozenset(("dir", "directory", "folder", "file", "action", "appender", "logger", "category"))
_KIND_ATTRS = frozenset(("type", "class"))
# Where a .NET XML documentation file (an assembly's doc comments, shipped beside its DLL) keeps its members.
_DOC_MEMBERS = ("doc", "members")
# Deeper than this, an XML document is read line by line (loose_entries): every open element holds its whole key
# path, so a 1 MB file of nested `<a>` (150,000 levels) held 40 GB of paths. Real configs nest a few levels, XAML
# and SVG a few dozen.
MAX_XML_DEPTH = 256


def _xml_entries(text: str, skip: tuple[str, ...] = ()) -> list[ConfigEntry]:
    """Entries of an XML document; elements whose tag is in `skip` are left out with
    everything inside them (the XSD schema every Visual Studio .resx embeds)."""
    out: list[ConfigEntry] = []
    parser = expat.ParserCreate("utf-8")
    stack: list[_Open] = []
    skipping = 0

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal skipping
        if skipping or tag in skip:
            skipping += 1
            return
        if len(stack) >= MAX_XML_DEPTH:
            raise ValueError(f"elements nested deeper than {MAX_XML_DEPTH} levels")
        line = parser.CurrentLineNumber
        top = stack[-1] if stack else _ROOT
        parent, rparent, secret = top.path, top.rpath, top.secret
        # A .resx image or serialized object: its text says how much data, not the data.
        binary = top.binary or "base64" in attrs.get("mimetype", "").lower()
        attrs = {a: v for a, v in attrs.items() if a != "xml:space"}  # a parser directive, not a setting
        naming = None  # the attribute that names the element: shown, never redacted as its value
        # .NET appSettings: <add key="X" value="Y"/> means X = Y.
        if tag in ("add", "setting") and "value" in attrs and ("key" in attrs or "name" in attrs):
            name = attrs.pop("key", None) or attrs.pop("name")
            path, rpath = parent + (name,), rparent + (name,)
            value = attrs.pop("value")
            out.append(ConfigEntry(line, ":".join(path), REDACTED if secret and value and not is_benign_value(value, name)
                                   else redact_value(rpath, value),
                                   path[0]))
            secret = secret or is_secret_key(rpath)
        else:
            naming = next((a for a in _NAMING_ATTRS if a in attrs), None)
            item = None if naming else next((a for a in _ITEM_ATTRS if a in attrs), None)
            if naming and tag in ("add", "remove", "clear"):
                name = attrs.pop(naming)
                path, rpath = parent + (name,), rparent + (name,)
            elif naming:
                step = f"{tag}[{attrs[naming]}]"
                # (an element whose name names no key is read by its tag, as an item is)
                path, rpath = parent + (step,), rparent + ((tag,) if tag in _NAMING_ONLY_TAGS else (step,))
                # <data name="StripeApiKey"><value>…</value></data> (.resx, app.config <setting>):
                # the name is the key, so what the element holds is that key's value.
                # (not a path's or an action's name, _NAMING_ONLY_TAGS; nor, in a .NET documentation file, a symbol's
                # id or a parameter's name: `<member name="P:…SQLiteConnection.ConnectionString">`, `<param
                # name="key">` hold text about them)
                secret = secret or (tag not in _NAMING_ONLY_TAGS and parent[:2] != _DOC_MEMBERS
                                    and is_secret_key(attrs[naming]))
            elif item:
                # A package or file name (`…Configuration.UserSecrets`) names the item; it is not a key.
                path, rpath = parent + (f"{tag}[{attrs[item]}]",), rparent + (tag,)
            else:
                path, rpath = parent + (tag,), rparent + (tag,)
            naming = naming or item
        for a, v in attrs.items():
            apath = path + (f"@{a}",)
            # (an attribute saying what kind the element is, `type="service"`, `class="…\\PasswordType"`, holds no
            # value; an `<add>`'s `description` is the secret's, as its `value` is)
            hidden = secret and v and a != naming and a.lower() not in _KIND_ATTRS and not is_benign_value(v, path[-1])
            # (the attribute that names the element is a name: `<packageSource key="nuget">`, `<data name="…">`)
            shown = redact_text(v) if a == naming else redact_value(rpath + (f"@{a}",), v)
            out.append(ConfigEntry(line, ":".join(apath), REDACTED if hidden else shown, apath[0]))
        stack.append(_Open(path, line, [], rpath, secret, binary))

    def end(_tag: str) -> None:
        nonlocal skipping
        if skipping:
            skipping -= 1
            return
        el = stack.pop()
        value = "".join(el.chunks).strip()
        if value and el.binary:
            out.append(ConfigEntry(el.line, ":".join(el.path), f"[base64 data, {len(value)} characters]", el.path[0]))
        elif value:
            out.append(ConfigEntry(el.line, ":".join(el.path),
                                   REDACTED if el.secret and not is_benign_value(value, el.path[-1])
                                   else redact_value(el.rpath, render_scalar(value)), el.path[0]))

    def chars(data: str) -> None:
        if stack and not skipping:
            stack[-1].chunks.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.Parse(text.encode("utf-8"), True)
    return out


# --- the fallback for documents that do not parse -----------------------------
_LOOSE_PAIR = re.compile(r"""^(\s*)(?:-\s+)?["']?([^"'=:#{}\[\]]+?)["']?\s*(?::|=)(?:\s+|$|(?=["'\[{0-9a-zA-Z]))(.*?)\s*,?\s*$""")
_XML_KEY_VALUE = re.compile(r"""(?i)\b(?:key|name)\s*=\s*["']([^"']*)["'][^>]*?\bvalue\s*=\s*["']([^"']*)["']""")


_PUNCTUATION_ONLY = re.compile(r"^[\s{}\[\],]*$")
_QUOTED_THEN_COMMENT = re.compile(r"""(["'])(?P<value>[^"'\n]*)\1(?P<gap>[ \t]+)(?P<note>#[^\n]*)""")


def loose_entries(lines: list[str]) -> list[ConfigEntry]:
    """key = value pairs pulled line by line, nesting by indentation; every
    other line is kept as text (redacted) so nothing of the file is dropped."""
    out: list[ConfigEntry] = []
    stack: list[tuple[int, str]] = []  # (indent, key)
    block = False  # the innermost parent opened a block scalar (`key: |`): its lines are its value, `#` lines too
    for no, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or _PUNCTUATION_ONLY.match(s):
            continue
        xml = _XML_KEY_VALUE.search(s)
        if xml:
            path = (xml.group(1),)
            out.append(ConfigEntry(no, xml.group(1), redact_value(path, xml.group(2)), xml.group(1)))
            continue
        m = _LOOSE_PAIR.match(raw)
        if not m or s.startswith(("#", "//", "<")):
            parent = tuple(k for _, k in stack)
            # (a comment below a mapping's key is no value of it: `secret:` then `#   kind: ECRAuthorizationToken`,
            # judged as any text is)
            comment = s.startswith(("#", "//")) and not (
                block and stack and len(raw) - len(raw.lstrip()) > stack[-1][0])
            out.append(ConfigEntry(no, ":".join(parent) or "(line)",
                                   redact_value(parent, s) if parent and not comment else redact_text(s),
                                   parent[0] if parent else ""))
            continue
        indent, key, value = len(m.group(1)), m.group(2).strip(), m.group(3).strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = tuple(k for _, k in stack) + (key,)
        block = value in ("|", ">", "|-", ">-")
        if value in ("", "{", "[") or block:
            # A parent key (or a block scalar, whose lines follow as text).
            stack.append((indent, key))
            continue
        if q := _QUOTED_THEN_COMMENT.fullmatch(value):
            # a quoted value and a comment after it (`password: "{{ .mysecret }}"  # plain manifests`): the value is
            # what is quoted, the comment text
            out.append(ConfigEntry(no, ":".join(path), redact_value(path, q.group("value")) + q.group("gap")
                                   + redact_text(q.group("note")), path[0]))
            continue
        value = value.strip("\"'")
        out.append(ConfigEntry(no, ":".join(path), redact_value(path, value), path[0]))
    return out


# --- entries -> chunks ---------------------------------------------------------
def config_pieces(
    path: str,
    entries: list[ConfigEntry],
    first_line: int,
    last_line: int,
    options: ChunkOptions,
    label: str = "Config",
    chunk_type: str = "config",
) -> list[ChunkPiece]:
    """Pack entries (sorted by line) into chunks of at most config_max_chars.

    The chunks' line ranges are contiguous and together span first..last, so
    comments and blank lines between keys are covered too.
    """
    entries = sorted(entries, key=lambda e: e.line)
    base_header = f"<!-- {label}: {path} -->\n"
    budget = max(200, options.config_max_chars - len(base_header) - 16)
    groups: list[list[tuple[ConfigEntry, str]]] = []
    size = 0
    for e in entries:
        text = e.render()
        if len(text) > budget:
            # One huge value: cut into slices that all keep its line.
            groups.extend([(e, text[k:k + budget])] for k in range(0, len(text), budget))
            size = budget + 1
            continue
        if groups and size + 1 + len(text) <= budget:
            groups[-1].append((e, text))
            size += 1 + len(text)
        else:
            groups.append([(e, text)])
            size = len(text)
    if not groups:
        header = base_header
        return [ChunkPiece(text=header + "(no keys)", chunk_type=chunk_type, start_line=first_line,
                           end_line=last_line, header=header)]
    n = len(groups)
    # A section's symbol holds at most units.NAME_CHARS of its name: a key of a whole line with no `=`, or a JSON key
    # of 300 KB, rode every part its entry was cut into (the square of the key). Cut once for every part it rides.
    names: dict[str, str] = {}
    starts = [first_line] + [max(first_line, g[0][0].line) for g in groups[1:]]
    pieces = []
    for k, group in enumerate(groups):
        start = starts[k]
        last_entry = max(e.line for e, _ in group)
        end = last_line if k == n - 1 else max(start, last_entry, starts[k + 1] - 1)
        end = min(max(end, start), last_line)
        header = base_header if n == 1 else f"<!-- {label}: {path} (part {k + 1}/{n}) -->\n"
        tops: dict[str, list[int]] = {}
        for e, _ in group:
            if e.top:
                tops.setdefault(e.top, []).append(e.line)
        symbols = [ChunkSymbol(names.get(t) or names.setdefault(t, cut_redacted(t, NAME_CHARS)),
                               "config_section", "", min(ls), max(ls)) for t, ls in tops.items()]
        pieces.append(ChunkPiece(
            text=header + "\n".join(t for _, t in group), chunk_type=chunk_type,
            start_line=start, end_line=end, symbols=symbols, header=header,
            meta={"part": k + 1, "parts": n} if n > 1 else {},
        ))
    return pieces


# A translation file: in a folder of translations (`i18n/`, `locales/`, `lang/`, `Localization/`, Android's
# `values-de-rDE/`) or named for a locale (`zh_CN.json`, `de-DE.yml`, `messages_fr.properties`,
# `Resources.de.resx`). Its values are judged by their
# form alone (redact.values_as_text).
_TRANSLATION_PATH = re.compile(
    r"(?:^|/)(?i:i18n|l10n|locales?|langs?|languages|translations?|locali[sz]ations?)/"
    r"|(?:^|/)[a-z]{2,3}[_-][A-Z]{2}\.(?:json|ya?ml|properties)$"
    r"|(?:^|/)(?i:messages|strings|labels|translations?)[_.-][a-z]{2}(?:[_-][A-Z]{2})?\.(?:json|ya?ml|properties)$"
    r"|\.[a-z]{2}(?:-[A-Z]{2})?\.resx$"
    # (an Android app's strings for a locale: `res/values-de-rDE/strings.xml`, `res/values-b+sr+Latn/strings.xml`)
    r"|(?:^|/)values-(?:[a-z]{2,3}(?:-r[A-Z]{2})?|b\+[a-z]{2,3}(?:\+\w+)*)/strings\.xml$")


def config_entries(path: str, text: str, lines: list[str]) -> tuple[list[ConfigEntry], list[str]]:
    """Entries of a config file by its extension, and notes on what went wrong."""
    translation = _TRANSLATION_PATH.search(path.replace("\\", "/"))
    with values_as_text() if translation else contextlib.nullcontext():
        return _config_entries(path, text, lines)


def _config_entries(path: str, text: str, lines: list[str]) -> tuple[list[ConfigEntry], list[str]]:
    ext = extension_of(path)
    try:
        if ext == ".json":
            return flatten_tree(parse_json_tree(text)), []
        if ext in (".yaml", ".yml"):
            trees = parse_yaml_trees(text, lines)
            if len(trees) == 1:
                return flatten_tree(trees[0]), []
            return [e for i, t in enumerate(trees) for e in flatten_tree(t, (str(i),))], []
        if ext == ".toml":
            return _toml_entries(text, lines), []
        if ext in (".ini", ".cfg"):
            return _ini_entries(lines), []
        if ext == ".env":
            return _env_entries(lines), []
        if ext == ".properties":
            return _properties_entries(lines), []
        if ext in XML_EXTENSIONS:
            return _xml_entries(text, ("xsd:schema",) if ext == ".resx" else ()), []
    except (ValueError, yaml.YAMLError, expat.ExpatError, RecursionError, TypeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return loose_entries(lines), [f"{ext[1:] or 'config'} did not parse ({reason[:200]}); keys taken line by line"]
    return loose_entries(lines), []


def chunk_config(path: str, text: str, options: ChunkOptions = DEFAULT_OPTIONS) -> ChunkResult:
    lines = split_lines(text)
    if not lines:
        return ChunkResult([])
    entries, notes = config_entries(path, text, lines)
    pieces = config_pieces(path, entries, 1, len(lines), options)
    return ChunkResult(pieces, notes=tuple(notes))


__all__ = [
    "REDACTED",
    "ConfigEntry",
    "chunk_config",
    "config_entries",
    "config_pieces",
    "flatten_tree",
    "is_secret_key",
    "loose_entries",
    "parse_json_tree",
    "parse_yaml_trees",
    "tree_to_python",
]
