"""A golden set the CodeSearchNet way: doc comments become queries, then vanish.

repo -> each documented type or member (Python docstrings, C# `///` comments,
TypeScript/JavaScript `/** ... */` JSDoc blocks)
-> query = the doc's first sentence, target = the member's file and line span
-> a copy of the repo with those docs blanked, line numbers preserved, committed
as a git repo so it can be registered and ingested -> golden.jsonl.

Docs whose first sentence is not unique in the repo (or under three words)
are left out: such a query has no single right answer.
"""

from __future__ import annotations

import ast
import html
import json
import os
import re
import shutil
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from chunkers import chunk_file
from chunkers.languages import extensions_of
from chunkers.paths import VENDORED_DIRS, VENDORED_SUFFIXES
from chunkers.text import BinaryContent, decode, split_lines
from ledger_assets.store import git
from ledger_assets.store.folders import walk

CS_DOC_KINDS = frozenset({"class", "struct", "interface", "record", "enum", "method", "constructor", "property",
                          "event", "indexer", "operator", "delegate", "field", "const"})
MIN_QUERY_WORDS = 3


class GoldenError(ValueError):
    """Bad input to `ledger golden` (no such repo, output folder not empty)."""


@dataclass(frozen=True)
class GoldenItem:
    query: str
    file: str
    start_line: int
    end_line: int
    symbol: str = ""

    def to_json(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if v != ""}, ensure_ascii=False)


@dataclass(frozen=True)
class _Doc:
    item: GoldenItem
    blank: tuple[int, int]  # doc lines to blank, 1-based inclusive
    span: tuple[int, int] | None = None  # JSDoc: the comment's UTF-8 byte range, blanked to its line breaks
    target: bool = True  # False: a JSDoc block above no declaration, blanked and counted, never a query


def first_sentence(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return ""
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z(`\"'])|(?<=[.!?])$", text)
    sentence = text[:match.start()] if match else text
    return sentence.strip().rstrip(".").strip()


def _cs_doc_text(lines: list[str]) -> str:
    raw = " ".join(re.sub(r"^\s*///\s?", "", ln) for ln in lines)
    summary = re.search(r"<summary>(.*?)</summary>", raw, re.S)
    body = summary.group(1) if summary else raw
    body = re.sub(r"<(?:see|seealso|paramref|typeparamref)\s+\w+=\"([^\"]*)\"\s*/>", r"\1", body)
    body = re.sub(r"<[^>]+>", " ", body)
    return html.unescape(body)


def csharp_docs(rel: str, text: str) -> list[_Doc]:
    lines = split_lines(text)
    seen: set[tuple] = set()
    out: list[_Doc] = []
    for piece in chunk_file(rel, text.encode("utf-8")):
        for s in piece.symbols:
            key = (s.name, s.kind, s.parent, s.start_line)
            if key in seen or s.kind not in CS_DOC_KINDS or s.start_line < 2:
                continue
            seen.add(key)
            # Walk up over attributes to the `///` block right above the declaration.
            i = s.start_line - 1  # 1-based line above
            while i >= 1 and lines[i - 1].lstrip().startswith("[") and not lines[i - 1].lstrip().startswith("///"):
                i -= 1
            end = i
            while i >= 1 and lines[i - 1].lstrip().startswith("///"):
                i -= 1
            start = i + 1
            if start > end:
                continue
            query = first_sentence(_cs_doc_text(lines[start - 1:end]))
            qname = f"{s.parent}.{s.name}" if s.parent else s.name
            out.append(_Doc(GoldenItem(query, rel, s.start_line, s.end_line, qname), (start, end)))
    return out


def python_docs(rel: str, text: str) -> list[_Doc]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = split_lines(text)
    out: list[_Doc] = []

    def visit(node, parents: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(child, clean=True)
                first = child.body[0] if child.body else None
                if doc and isinstance(first, ast.Expr) and first.lineno > child.lineno:
                    d0, d1 = first.lineno, first.end_lineno or first.lineno
                    own_lines = lines[d0 - 1].strip().startswith(("'", '"', "r'", 'r"', "b'", 'b"', "u'", 'u"'))
                    if own_lines and lines[d1 - 1].rstrip().endswith(("'", '"')):
                        start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        name = ".".join(parents + [child.name])
                        out.append(_Doc(GoldenItem(first_sentence(doc.split("\n\n")[0]), rel, start,
                                                   child.end_lineno or child.lineno, name), (d0, d1)))
                visit(child, parents + [child.name])
            elif not isinstance(child, (ast.Lambda,)):
                visit(child, parents)

    visit(tree, [])
    return out


# ----------------------------------------------------------------- JSDoc ---
# TypeScript/JavaScript: a `/** ... */` block right above a declaration (function, class, interface, type
# alias, enum, namespace, `const`/`let`, `a.b = ...`, a class/interface/object member). Every JSDoc block
# of the file is blanked (not only those above a declaration: an overload's or a stray block may repeat a
# query) and every block's first sentence counts for uniqueness. Names are as the TS chunker gives them
# (`default` for an anonymous default export), members `Parent.name`.

JS_DOC_EXTENSIONS = extensions_of("typescript", "javascript")
_JS_FUNCTION_VALUES = frozenset({"function_expression", "function", "generator_function", "arrow_function"})
_JS_NAMED_DECLS = {"function_declaration": "function", "generator_function_declaration": "function",
                   "function_signature": "function", "class_declaration": "class",
                   "abstract_class_declaration": "class", "class": "class", "interface_declaration": "interface",
                   "enum_declaration": "enum", "type_alias_declaration": "type", "internal_module": "namespace",
                   "module": "namespace"}
_JS_MEMBERS = {"method_definition": "method", "method_signature": "method", "abstract_method_signature": "method",
               "public_field_definition": "property", "field_definition": "property",
               "property_signature": "property", "pair": "property"}
# Blocks that describe a file, a licence or a build step, not the declaration under them.
_JS_FILE_TAGS = frozenset({"file", "fileoverview", "overview", "module", "packagedocumentation", "license",
                           "licence", "preserve", "copyright", "jsx", "jsxfrag", "jsximportsource", "flow"})
_JS_ASSIGN_TARGET = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")


def _ts_text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _js_key(node) -> str:
    name = node.child_by_field_name("name") or node.child_by_field_name("key") or node.child_by_field_name("property")
    if name is None:
        return ""
    text = _ts_text(name)
    return text[1:-1] if name.type == "string" and len(text) >= 2 else text


def _js_decl(node) -> tuple[str, str] | None:
    """(name, kind) of a declaration a JSDoc block can document; None for anything else."""
    t = node.type
    if t == "export_statement":
        decl = node.child_by_field_name("declaration")
        if decl is not None:
            return _js_decl(decl)
        value = node.child_by_field_name("value")
        if value is not None and value.type in _JS_FUNCTION_VALUES:
            return "default", "function"
        if value is not None and value.type == "class":
            return "default", "class"
        return None
    if t in ("ambient_declaration", "expression_statement"):
        for c in node.named_children:
            if c.type in _JS_NAMED_DECLS or c.type in ("lexical_declaration", "variable_declaration"):
                return _js_decl(c)
            if c.type == "assignment_expression":
                left, right = c.child_by_field_name("left"), c.child_by_field_name("right")
                lhs = _ts_text(left) if left is not None else ""
                if _JS_ASSIGN_TARGET.match(lhs):
                    return lhs, "function" if right is not None and right.type in _JS_FUNCTION_VALUES else "variable"
            return None
        return None
    if t in _JS_NAMED_DECLS:
        if t == "class":
            return None  # an expression, documented through what holds it
        return (_js_key(node) or "default"), _JS_NAMED_DECLS[t]
    if t in ("lexical_declaration", "variable_declaration"):
        for d in node.named_children:
            if d.type == "variable_declarator":
                name, value = d.child_by_field_name("name"), d.child_by_field_name("value")
                if name is None or name.type != "identifier":
                    return None
                kind = "function" if value is not None and value.type in _JS_FUNCTION_VALUES else (
                    "class" if value is not None and value.type == "class" else "variable")
                return _ts_text(name), kind
        return None
    if t in _JS_MEMBERS:
        name = _js_key(node)
        if not name:
            return None
        value = node.child_by_field_name("value")
        if t.startswith(("method", "abstract_method")):
            kind = "constructor" if name == "constructor" else "method"
        else:
            kind = "method" if value is not None and value.type in _JS_FUNCTION_VALUES else "property"
        return name, kind
    return None


def _js_scope(node) -> str:
    """The name a node gives the declarations inside it (class, interface, namespace, function, object)."""
    t = node.type
    if t in _JS_NAMED_DECLS or t in ("method_definition", "function_expression"):
        return _js_key(node)
    if t == "variable_declarator":
        value = node.child_by_field_name("value")
        name = node.child_by_field_name("name")
        if value is not None and name is not None and name.type == "identifier" and (
                value.type in _JS_FUNCTION_VALUES or value.type in ("object", "class")):
            return _ts_text(name)
    if t in ("pair", "public_field_definition", "field_definition"):
        value = node.child_by_field_name("value")
        if value is not None and (value.type in _JS_FUNCTION_VALUES or value.type in ("object", "class")):
            return _js_key(node)
    return ""


def _inline_tag(m: re.Match) -> str:
    tag, body = m.group(1).lower(), m.group(2).strip()
    if tag.startswith("link"):  # {@link Target}, {@link Target|text}, {@link Target text}
        target, _, label = body.partition("|") if "|" in body else body.partition(" ")
        return label.strip() or target.strip()
    return body


def _first_paragraph(lines: list[str]) -> str:
    """Up to the first blank line or list item, as the Python extractor takes a docstring's first paragraph."""
    out: list[str] = []
    for ln in lines:
        text = ln.strip()
        if not text:
            if out:
                break
            continue
        if out and re.match(r"(?:[-*+]|\d+[.)])\s", text):
            break
        out.append(text)
    return " ".join(out)


def jsdoc_text(comment: str) -> str:
    """A `/** ... */` block's description, in words: the text before the first block tag (else its
    `@summary` or `@description`), inline tags and markdown as plain words, code blocks dropped."""
    body = comment[3:-2] if comment.endswith("*/") else comment[3:]
    lines = [re.sub(r"^\s*\*(?!\*) ?", "", ln) for ln in body.split("\n")]
    desc: list[str] = []
    tags: dict[str, list[str]] = {}
    current: list[str] | None = None
    fence = False
    for ln in lines:
        if ln.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        m = re.match(r"\s*@(\w+)\s?(.*)", ln)
        if m:
            current = tags.setdefault(m.group(1).lower(), [])
            current.append(m.group(2))
            continue
        (current if current is not None else desc).append(ln)
    if _JS_FILE_TAGS & tags.keys():
        return ""
    text = (_first_paragraph(desc) or _first_paragraph(tags.get("summary", []))
            or _first_paragraph(tags.get("description", [])))
    if re.search(r"\{@inheritdoc\b", text, re.IGNORECASE):
        return ""
    text = re.sub(r"\{@(\w+)\s*([^}]*)\}", _inline_tag, text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # [words](url)
    text = re.sub(r"`+([^`]*)`+", r"\1", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"</?(?:p|br|code|b|i|em|strong|ul|ol|li|pre|a|tt|kbd|span|div|c)(?:\s[^>]*)?/?>", " ",
                  text, flags=re.IGNORECASE)
    return html.unescape(text)


def jsdoc_docs(rel: str, text: str) -> list[_Doc]:
    from chunkers.typescript import _parser, dialect_of

    src = text.encode("utf-8")
    try:
        tree = _parser(dialect_of(rel)).parse(src)
    except Exception:  # noqa: BLE001 - no grammar: no docs
        return []
    out: list[_Doc] = []
    stack = [(tree.root_node, ())]  # a stack, not recursion: generated code nests deeper than Python's limit
    while stack:
        node, parents = stack.pop()
        kids = node.children
        for i, child in enumerate(kids):
            if child.type == "comment":
                raw = _ts_text(child)
                if not raw.startswith("/**") or raw.startswith("/**/"):
                    continue
                c0, c1 = child.start_point[0] + 1, child.end_point[0] + 1
                query = first_sentence(jsdoc_text(raw))
                item = GoldenItem(query, rel, 0, 0)
                target = False
                j = i + 1
                while j < len(kids) and kids[j].type == "decorator":
                    j += 1
                nxt = kids[j] if j < len(kids) else None
                # Directly above: what follows (decorators, then the declaration) starts on the next line.
                first_line = kids[i + 1].start_point[0] + 1 if i + 1 < len(kids) else 0
                decl = _js_decl(nxt) if nxt is not None and query and 0 < first_line <= c1 + 1 else None
                if decl:
                    item = GoldenItem(query, rel, first_line, nxt.end_point[0] + 1, ".".join([*parents, decl[0]]))
                    target = True
                out.append(_Doc(item, (c0, c1), (child.start_byte, child.end_byte), target))
            elif child.is_named and child.child_count:
                scope = _js_scope(child)
                stack.append((child, (*parents, scope) if scope else parents))
    return sorted(out, key=lambda d: d.span)


def _blank_spans(text: str, docs: list[_Doc]) -> list[str]:
    """The text with each JSDoc block cut down to its line breaks: same line count, code around it kept;
    a line left with only spaces becomes empty."""
    src = text.encode("utf-8")
    spans = sorted(d.span for d in docs if d.span)
    parts, at = [], 0
    touched: set[int] = set()
    for s, e in spans:
        if s < at:
            continue
        parts.append(src[at:s])
        piece = src[s:e]
        parts.append(bytes(b for b in piece if b in (10, 13)))
        line0 = src.count(b"\n", 0, s)
        touched.update(range(line0, line0 + piece.count(b"\n") + 1))
        at = e
    parts.append(src[at:])
    lines = split_lines(b"".join(parts).decode("utf-8"))
    for n in touched:
        if n < len(lines):
            lines[n] = lines[n].rstrip() if lines[n].strip() else ""
    return lines


def _blank(lines: list[str], docs: list[_Doc], python: bool) -> list[str]:
    out = list(lines)
    for d in docs:
        s, e = d.blank
        indent = re.match(r"\s*", out[s - 1]).group(0)
        for n in range(s, e + 1):
            out[n - 1] = ""
        if python:
            # The docstring may be the body's only statement: keep the body valid on the same line.
            out[s - 1] = f"{indent}pass"
    return out


def _tracked_files(root: Path) -> list[str]:
    try:
        proc = git.run(root, "ls-files", "-z", check=False, timeout=git.NO_TIMEOUT)
    except git.GitError:  # no git to run: walk the folder
        proc = None
    if proc is not None and proc.returncode == 0 and proc.stdout:
        return sorted(p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p)
    files = []
    for dirpath, dirnames, filenames in walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            full = Path(dirpath) / name
            if full.is_file() and not full.is_symlink():
                files.append(full.relative_to(root).as_posix())
    return sorted(files)


def build_golden(repo_path: str | Path, out_dir: str | Path) -> dict:
    root = Path(repo_path).expanduser()
    if not root.is_dir():
        raise GoldenError(f"{repo_path}: no such directory")
    out = Path(out_dir).expanduser()
    if out.exists() and any(out.iterdir()):
        raise GoldenError(f"{out_dir}: exists and is not empty; give a new folder")
    root = root.resolve()
    files = _tracked_files(root)
    docs_by_file: dict[str, list[_Doc]] = {}
    texts: dict[str, str] = {}
    for rel in files:
        js = rel.endswith(JS_DOC_EXTENSIONS)
        if not (rel.endswith((".py", ".cs")) or js):
            continue
        if js and (rel.endswith(VENDORED_SUFFIXES) or VENDORED_DIRS.intersection(rel.split("/")[:-1])):
            continue  # bundles and vendored copies are never ingested: their docs could not be found
        full = root / rel
        if full.is_symlink() or not full.is_file():
            continue
        try:
            text = decode(full.read_bytes())
        except (OSError, BinaryContent):
            continue
        texts[rel] = text
        if js:
            docs = jsdoc_docs(rel, text)
        else:
            docs = python_docs(rel, text) if rel.endswith(".py") else csharp_docs(rel, text)
        if docs:
            docs_by_file[rel] = docs
    counts = Counter(d.item.query.lower() for docs in docs_by_file.values() for d in docs)
    keep = {rel: [d for d in docs if d.target and len(d.item.query.split()) >= MIN_QUERY_WORDS
                  and counts[d.item.query.lower()] == 1]
            for rel, docs in docs_by_file.items()}

    copy = out / "repo"
    copy.mkdir(parents=True)
    for rel in files:
        src = root / rel
        if src.is_symlink() or not src.is_file():
            continue
        dst = copy / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        # Every doc of the file is blanked, kept or not: the answer must never be in the indexed text.
        all_docs = docs_by_file.get(rel)
        if all_docs:
            lines = (_blank_spans(texts[rel], all_docs) if rel.endswith(JS_DOC_EXTENSIONS)
                     else _blank(split_lines(texts[rel]), all_docs, rel.endswith(".py")))
            dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
        else:
            shutil.copyfile(src, dst)
    env = {**os.environ, "GIT_AUTHOR_NAME": "ledger golden", "GIT_AUTHOR_EMAIL": "golden@localhost",
           "GIT_COMMITTER_NAME": "ledger golden", "GIT_COMMITTER_EMAIL": "golden@localhost"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", f"golden copy of {root.name}, docs blanked"]):
        git.run(copy, *args, env=env, timeout=git.NO_TIMEOUT)
    items = [d.item for rel in sorted(keep) for d in sorted(keep[rel], key=lambda d: d.item.start_line)]
    golden = out / "golden.jsonl"
    golden.write_text("".join(item.to_json() + "\n" for item in items), encoding="utf-8")
    return {"golden": str(golden), "repo_copy": str(copy), "queries": len(items),
            "documented": sum(d.target for docs in docs_by_file.values() for d in docs),
            "files_with_docs": len(docs_by_file)}
