"""The language table: each file extension's language, chunker and kind, and the test/docs naming conventions.

One row per language, read by the registry (which chunker), the snapshot (the payload's `language`),
the path classification (`chunkers.paths`: test and docs files), the golden sets (what is program
source), the graph (the JS family's module files) and read-span (which files are key/value settings).
A leaf beside `extensions`: nothing here imports a chunker. How to add a language: docs/howto.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .extensions import extension_of


@dataclass(frozen=True)
class Language:
    name: str                     # the payload's `language` (when `indexed`)
    extensions: tuple[str, ...]   # lowercased, with the dot
    chunker: str = ""             # "module:function" in chunkers/; "" = plain line windows
    reads_bytes: bool = False     # the chunker takes the raw bytes (PDF), not decoded text
    source: bool = False          # program source: where a change lands (commit golden targets)
    settings: bool = False        # key/value settings: read-span hides the values under secret-shaped keys
    docs: bool = False            # prose by its extension (`--group file` ranks it below code)
    indexed: bool = True          # False: known here, but chunked as plain text and labelled "text"
    test_names: tuple[str, ...] = ()  # regexes over a file name that mark a test file of this language


def _xunit(ext: str) -> str:
    """FooTests.cs, FooSpec.java, FooFixture.kt: the xUnit family names the class under test."""
    return rf".*(?:Tests?|Specs?|Fixture)\.{ext}"


def _suffix_test(ext: str) -> str:
    return rf".*_test\.{ext}"


def _dotted_test(ext: str) -> str:
    """x.test.ts, x.spec.js, x-tests.mjs ..."""
    return rf".*[._-](?:test|spec)s?\.{ext}"


CODE = "treesitter:chunk_treesitter"
TS = "typescript:chunk_typescript"
# XML read as settings by the config chunker: .NET config, MSBuild projects and props/targets,
# NuGet specs, .resx resources (`root:data[OrderNotFound]:value = Order {id} was not found.`).
_XML = (".config", ".csproj", ".fsproj", ".nuspec", ".props", ".resx", ".targets", ".vbproj", ".xml")

# Row order is the registry's dispatch order; each extension appears once.
LANGUAGE_TABLE: tuple[Language, ...] = (
    Language("csharp", (".cs",), "csharp:chunk_csharp", source=True, test_names=(_xunit("cs"),)),
    Language("razor", (".razor", ".cshtml"), "razor:chunk_razor", source=True),
    Language("typescript", (".ts", ".tsx", ".mts", ".cts"), TS, source=True, test_names=(_dotted_test(r"[cm]?tsx?"),)),
    Language("javascript", (".js", ".jsx", ".mjs", ".cjs"), TS, source=True, test_names=(_dotted_test(r"[cm]?jsx?"),)),
    Language("vue", (".vue",), "components:chunk_component", source=True),
    Language("svelte", (".svelte",), "components:chunk_component", source=True),
    Language("sql", (".sql",), "sql:chunk_sql", source=True),
    Language("python", (".py", ".pyi"), "python_code:chunk_python", source=True,
             test_names=(r"test_.*\.py", r".*_test\.py", r"conftest\.py")),
    Language("java", (".java",), CODE, source=True, test_names=(_xunit("java"),)),
    Language("go", (".go",), CODE, source=True, test_names=(_suffix_test("go"),)),
    Language("rust", (".rs",), CODE, source=True, test_names=(_suffix_test("rs"),)),
    Language("kotlin", (".kt", ".kts"), CODE, source=True, test_names=(_xunit("kt"),)),
    Language("php", (".php",), CODE, source=True),
    Language("ruby", (".rb",), CODE, source=True, test_names=(r".*_spec\.rb", _suffix_test("rb"), r"test_.*\.rb")),
    Language("c", (".c", ".h"), CODE, source=True, test_names=(_suffix_test("c"),)),
    Language("cpp", (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx"), CODE, source=True,
             test_names=(_suffix_test("(?:cc|cpp)"),)),
    Language("swift", (".swift",), CODE, source=True, test_names=(_xunit("swift"),)),
    Language("scala", (".scala",), CODE, source=True, test_names=(_xunit("scala"),)),
    Language("markdown", (".md", ".markdown", ".mdx"), "markdown:chunk_markdown_result", docs=True),
    Language("json", (".json",), "openapi:chunk_structured", settings=True),
    Language("yaml", (".yaml", ".yml"), "openapi:chunk_structured", settings=True),
    Language("toml", (".toml",), "config:chunk_config", settings=True),
    Language("ini", (".ini", ".cfg"), "config:chunk_config", settings=True),
    Language("dotenv", (".env",), "config:chunk_config", settings=True),
    Language("properties", (".properties",), "config:chunk_config", settings=True),
    Language("xml", _XML, "config:chunk_config", settings=True),
    Language("pdf", (".pdf",), "pdf:chunk_pdf", reads_bytes=True),
    Language("text", (".txt",), docs=True),
    # Known, not parsed: chunked as plain text, labelled "text".
    Language("conf", (".conf",), settings=True, indexed=False),
    Language("restructuredtext", (".rst",), docs=True, indexed=False),
    Language("asciidoc", (".adoc", ".asciidoc"), docs=True, indexed=False),
    Language("objective-c", (".m",), source=True, indexed=False),
    Language("lua", (".lua",), source=True, indexed=False),
    Language("dart", (".dart",), source=True, indexed=False, test_names=(_suffix_test("dart"),)),
    Language("elixir", (".ex", ".exs"), source=True, indexed=False, test_names=(_suffix_test("exs"),)),
    Language("shell", (".sh",), source=True, indexed=False),
    Language("fsharp", (".fs",), indexed=False, test_names=(_xunit("fs"),)),
    Language("visual-basic", (".vb",), indexed=False, test_names=(_xunit("vb"),)),
)

BY_EXTENSION: dict[str, Language] = {ext: row for row in LANGUAGE_TABLE for ext in row.extensions}
# extension -> the payload's language name, for the languages the index labels.
LANGUAGES: dict[str, str] = {ext: row.name for ext, row in BY_EXTENSION.items() if row.indexed}
XML_EXTENSIONS = frozenset(_XML)
SOURCE_EXTENSIONS = frozenset(ext for ext, row in BY_EXTENSION.items() if row.source)
SETTINGS_EXTENSIONS = frozenset(ext for ext, row in BY_EXTENSION.items() if row.settings)
DOCS_EXTENSIONS = tuple(ext for ext, row in BY_EXTENSION.items() if row.docs)

# Test and docs files by path, beyond the per-language test names above (read by `chunkers.paths`).
TEST_DIR_PATTERN = (r"^(?:.*[._-])?(?:unit|integration|functional|e2e|acceptance)?(?:tests?|specs?)$|^__tests__$"
                    r"|^__mocks__$|^testdata$|^testing$|^fixtures$")
DOCS_NAMES = ("changelog", "changes", "history", "news", "authors", "contributors", "license", "copying", "readme")


def language_of(path: str) -> str:
    """The payload's `language` of a path: by its extension, "text" for anything not in the table."""
    row = BY_EXTENSION.get(extension_of(path))
    return row.name if row is not None and row.indexed else "text"


def extensions_of(*names: str) -> tuple[str, ...]:
    """The extensions of the named languages, in table order."""
    return tuple(ext for row in LANGUAGE_TABLE if row.name in names for ext in row.extensions)
