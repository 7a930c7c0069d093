"""Config files: flattened key paths with their lines, contiguous coverage, never a crash."""

import random
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkers import ChunkOptions, chunk_file, chunk_file_result, chunker_name
from chunkers.config import XML_EXTENSIONS, chunk_config
from chunkers.openapi import chunk_structured
from tests.invariants import assert_invariants, assert_lossless

FIXTURES = Path(__file__).parent.parent / "fixtures" / "config"


def entries(name: str, options: ChunkOptions = ChunkOptions()) -> list[str]:
    text = (FIXTURES / name).read_text()
    chunker = chunk_structured if name.endswith((".json", ".yaml", ".yml")) else chunk_config
    result = chunker(name, text, options)
    assert_invariants(result.pieces, text)
    return [line for p in result.pieces for line in p.body.split("\n")]


def test_appsettings_json_with_comments_and_trailing_commas_flattens_to_key_paths():
    assert entries("appsettings.json") == [
        "L5 Logging:LogLevel:Default = Warning",
        "L6 Logging:LogLevel:Microsoft.AspNetCore = Information",
        "L10 ConnectionStrings:Default = [REDACTED]",
        "L13 Jwt:Issuer = https://auth.example.com",
        "L14 Jwt:SigningKey = [REDACTED]",
        "L15 Jwt:ExpiryMinutes = 60",
        "L18 Stripe:ApiToken = [REDACTED]",
        "L19 Stripe:WebhookUrl = https://[REDACTED]:[REDACTED]@hooks.example.com/stripe",
        "L21 AllowedHosts = *",
        "L23 Features:0 = search",
        "L24 Features:1 = drift",
    ]


def test_one_config_chunk_covers_the_whole_file_with_a_header_and_sections():
    text = (FIXTURES / "appsettings.json").read_text()
    [piece] = chunk_structured("src/Api/appsettings.json", text, ChunkOptions()).pieces
    assert (piece.chunk_type, piece.start_line, piece.end_line) == ("config", 1, 26)
    assert piece.header == "<!-- Config: src/Api/appsettings.json -->\n"
    assert [s.name for s in piece.symbols] == ["Logging", "ConnectionStrings", "Jwt", "Stripe", "AllowedHosts",
                                               "Features"]


def test_yaml_sequences_and_block_scalars():
    assert entries("secrets.yaml") == [
        "L3 service:name = ledger-ingest",
        "L4 service:replicas = 2",
        "L6 database:host = db.internal",
        "L7 database:port = 5432",
        "L8 database:password = [REDACTED]",
        "L9 database:url = postgresql://[REDACTED]:[REDACTED]@db.internal:5432/ledger",
        "L11 queues:0:name = ingest",
        "L12 queues:0:token = [REDACTED]",
        "L13 queues:1:name = analyse",
        "L14 queues:1:visibility_timeout = 30",
        "L15 notes = Rotate credentials every 90 days.\\nAsk the platform team for access.\\n",
    ]


def test_toml_tables_and_arrays_of_tables_keep_their_lines():
    assert entries("settings.toml") == [
        "L1 title = Ledger settings",
        "L4 server:host = 0.0.0.0",
        "L5 server:port = 8080",
        "L8 auth:issuer = https://auth.example.com",
        "L9 auth:client_secret = [REDACTED]",
        "L10 auth:scopes:0 = read",
        "L10 auth:scopes:1 = write",
        "L16 workers:0:name = embedder",
        "L17 workers:0:api_key = [REDACTED]",
        "L20 workers:1:name = analyser",
        "L21 workers:1:threads = 4",
    ]


def test_ini_sections_continuations_and_connection_strings():
    assert entries("app.ini") == [
        "L3 server:host = 0.0.0.0",
        "L4 server:port = 9000",
        "L7 database:dsn = Server=sqlhost;Database=Ledger;User Id=[REDACTED];Password=[REDACTED];",
        "L8 database:password = [REDACTED]",
        "L9 database:timeout = 30",
        "L12 paths:roots = /srv/repos\\n/mnt/more-repos",
    ]


def test_env_files_strip_export_quotes_and_comments():
    assert entries("production.env") == [
        "L2 LEDGER_HOME = /var/lib/ledger",
        "L3 GROQ_API_KEY = [REDACTED]",
        "L4 QDRANT_URL = https://qdrant.internal:6333",
        "L5 DATABASE_URL = postgres://[REDACTED]:[REDACTED]@db.internal/ledger",
        "L6 LOG_LEVEL = info",
        "L7 SESSION_SECRET = [REDACTED]",
    ]


def test_properties_join_continued_lines():
    assert entries("application.properties") == [
        "L2 server:port = 8081",
        "L3 spring:datasource:url = jdbc:postgresql://db.internal:5432/ledger",
        "L4 spring:datasource:password = [REDACTED]",
        "L5 app:description = Loads repositories into the ledger",
    ]


def test_a_long_run_of_continued_lines_is_joined_once():
    """Each continuation was added to the text so far, the square of the run: 300,000 lines took 6.3 CPU s on
    main (bbe3e64); the pieces are joined once now (0.4 s; the bound is generous, as the redactor's worst cases'
    are). An escaped backslash still ends a line, and a blank line ends a continued one."""
    from chunkers.config import _properties_entries

    lines = ["a = x \\"] + ["  y \\"] * 300_000 + ["end", "b = 1 \\\\", "c = 2 \\", "", "d = 3"]
    start = time.process_time()
    got = _properties_entries(lines)
    assert time.process_time() - start < 2.0
    assert [(e.line, e.key) for e in got] == [(1, "a"), (300_003, "b"), (300_004, "c"), (300_006, "d")]
    assert got[0].value == "x " + "y " * 300_000 + "end"
    assert [e.value for e in got[1:]] == ["1 \\\\", "2 ", "3"]


def test_web_config_app_settings_read_as_keys():
    assert entries("web.config") == [
        "L4 configuration:appSettings:Environment = Production",
        "L5 configuration:appSettings:StorageAccountKey = [REDACTED]",
        "L8 configuration:connectionStrings:Ledger:@connectionString = [REDACTED]",
        # (a name under a section of secrets is judged by itself: a provider's name is none; round 61)
        "L8 configuration:connectionStrings:Ledger:@providerName = System.Data.SqlClient",
        "L11 configuration:system.web:compilation:@debug = false",
        "L11 configuration:system.web:compilation:@targetFramework = 4.8",
    ]


def test_msbuild_projects_and_resx_resources_are_xml_settings_not_windows():
    assert entries("Inventory.csproj") == [
        "L1 Project:@Sdk = Microsoft.NET.Sdk",
        "L4 Project:PropertyGroup:TargetFramework = net8.0",
        "L5 Project:PropertyGroup:Nullable = enable",
        # (the user-secrets store's id names a folder, as free text has read it since the fifth round)
        "L6 Project:PropertyGroup:UserSecretsId = inventory-7f3c",
        "L10 Project:ItemGroup:PackageReference[Dapper]:@Include = Dapper",
        "L10 Project:ItemGroup:PackageReference[Dapper]:@Version = 2.1.35",
        "L11 Project:ItemGroup:PackageReference[Serilog.AspNetCore]:@Include = Serilog.AspNetCore",
        "L11 Project:ItemGroup:PackageReference[Serilog.AspNetCore]:@Version = 8.0.1",
        "L15 Project:ItemGroup:Compile[Properties\\Messages.Designer.cs]:@Update = Properties\\Messages.Designer.cs",
        "L16 Project:ItemGroup:Compile[Properties\\Messages.Designer.cs]:DesignTime = True",
        "L17 Project:ItemGroup:Compile[Properties\\Messages.Designer.cs]:DependentUpon = Messages.resx",
    ]
    resx = entries("Messages.resx")
    assert "L7 root:data[OrderNotFound]:value = Order {orderId} was not found in warehouse '{warehouse}'." in resx
    assert "L8 root:data[OrderNotFound]:comment = Thrown by OrderService.Cancel." in resx
    assert "L11 root:data[StockBelowZero]:value = Stock for SKU '{sku}' cannot fall below zero." in resx
    # Every XML extension the config chunker reads is dispatched to it.
    for ext in XML_EXTENSIONS:
        assert chunker_name(f"x{ext}") == "config", ext
    result = chunk_file_result("src/Messages.resx", (FIXTURES / "Messages.resx").read_bytes())
    assert [(p.chunk_type, p.start_line, p.end_line) for p in result.pieces] == [("config", 1, 13)]
    # The XSD schema every Visual Studio .resx embeds and `xml:space` are not settings.
    assert not [e for e in resx if "xsd:" in e or "xml:space" in e]


def test_base64_data_in_a_resx_is_summarised_not_spread_over_parts():
    # A WinForms .resx embeds images as base64 <value> text: thousands of lines no one searches.
    blob = "\n".join("iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAA" for _ in range(3000))
    text = ('<root>\n  <data name="LogoImage" type="System.Drawing.Bitmap, System.Drawing" '
            'mimetype="application/x-microsoft.net.object.bytearray.base64">\n'
            f'    <value>\n{blob}\n</value>\n  </data>\n'
            '  <data name="Title"><value>Warehouse</value></data>\n</root>\n')
    result = chunk_file_result("Form1.resx", text.encode())
    assert_invariants(result.pieces, text)
    assert [(p.start_line, p.end_line) for p in result.pieces] == [(1, 3007)]
    assert result.pieces[0].body.split("\n")[-3:] == [
        f"L3 root:data[LogoImage]:value = [base64 data, {len(blob)} characters]",
        "L3006 root:data[Title]:@name = Title", "L3006 root:data[Title]:value = Warehouse"]


def test_an_element_named_like_a_secret_holds_a_secret():
    # .resx <data name=…> and app.config <setting name=…> name the key; the <value> inside is its value.
    resx = (b'<root><data name="StripeApiKey" xml:space="preserve"><value>sk_live_51HabcQ2eL0ngS</value></data>'
            b'<data name="Greeting"><value>Hello</value></data></root>')
    body = chunk_file_result("Settings.resx", resx).pieces[0].body
    assert "sk_live" not in body
    assert body.split("\n") == ["L1 root:data[StripeApiKey]:@name = StripeApiKey",
                                 "L1 root:data[StripeApiKey]:value = [REDACTED]",
                                 "L1 root:data[Greeting]:@name = Greeting", "L1 root:data[Greeting]:value = Hello"]
    # A secret <add> with more attributes than key and value: they are the secret's too.
    add = b'<configuration><appSettings><add key="ApiKey" value="abc123" description="prod" /></appSettings></configuration>'
    result = chunk_file_result("web.config", add)
    assert not result.notes and result.pieces[0].body.split("\n") == [
        "L1 configuration:appSettings:ApiKey = [REDACTED]", "L1 configuration:appSettings:ApiKey:@description = [REDACTED]"]
    config = (b'<configuration><applicationSettings><Shop.Settings>'
              b'<setting name="AuthToken" serializeAs="String"><value>tok_abc123</value></setting>'
              b'</Shop.Settings></applicationSettings></configuration>')
    assert "tok_abc123" not in chunk_file_result("app.config", config).pieces[0].body
    # A package named `...UserSecrets` is an item name, not a section of secrets: its version stays.
    project = b'<Project><ItemGroup><PackageReference Include="Microsoft.Extensions.Configuration.UserSecrets" ' \
              b'Version="8.0.0" /></ItemGroup></Project>'
    assert chunk_file_result("A.csproj", project).pieces[0].body.endswith(
        "PackageReference[Microsoft.Extensions.Configuration.UserSecrets]:@Version = 8.0.0")


@pytest.mark.parametrize("name, note", [
    ("broken.json", "json did not parse (unclosed object); keys taken line by line"),
    ("broken.yaml", "yaml did not parse (while parsing a flow sequence); keys taken line by line"),
])
def test_invalid_documents_still_give_config_chunks_and_a_note(name, note):
    data = (FIXTURES / name).read_bytes()
    result = chunk_file_result(name, data)
    assert result.notes == (note,)
    assert [p.chunk_type for p in result.pieces] == ["config"]
    assert_lossless(result.pieces, data)
    assert "[REDACTED]" in result.pieces[0].text


def test_a_parse_note_quotes_no_part_of_an_unquoted_secret():
    """A note is shown in Dagster's metadata and by the CLI: an unquoted token that breaks a JSON document is
    named by its line, never quoted (it quoted the token's first 20 characters)."""
    data = b'{\n  "region": "eu",\n  "token": ghp_R8vK2mXq9LpZ4tYb7NcW3sHd6Fj1Qa0Ue5Io\n}\n'
    result = chunk_file_result("settings.json", data)
    assert result.notes == ("json did not parse (bad literal at line 3); keys taken line by line",)
    assert "R8vK2m" not in "".join(result.notes) + "".join(p.text for p in result.pieces)


def test_xml_nested_past_the_depth_cap_is_read_line_by_line_in_little_memory():
    """Each open element holds its key path, so nesting cost its square: 150,000 `<a>` (1 MB) held 40 GB. Past
    MAX_XML_DEPTH the document is read line by line, with a note; at the cap its keys are read as before."""
    import tracemalloc

    from chunkers.config import MAX_XML_DEPTH

    at_cap = "<a>" * (MAX_XML_DEPTH - 1) + "<password>hunter2hunter2</password>" + "</a>" * (MAX_XML_DEPTH - 1)
    result = chunk_file_result("deep.xml", at_cap.encode())
    assert result.notes == () and result.pieces[0].body.endswith(":password = [REDACTED]")
    deep = ("<a>" * 5_000 + "<password>hunter2hunter2</password>" + "</a>" * 5_000).encode()
    tracemalloc.start()
    try:
        result = chunk_file_result("deep.xml", deep)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.notes == (f"xml did not parse (elements nested deeper than {MAX_XML_DEPTH} levels); "
                            "keys taken line by line",)
    assert peak < 50_000_000, peak            # 5,000 levels held about 200 MB of paths before the cap
    assert_lossless(result.pieces, deep)
    assert "hunter2hunter2" not in "".join(p.text for p in result.pieces)


def test_an_ini_line_holding_more_than_a_section_header_is_kept():
    """`[s]` then text on the same line (`[db] host = x`, or the rest of a file whose line breaks are lone
    carriage returns) lost the text: 45 KB of such a file gave "(no keys)"."""
    text = "[db] host = x\n[a]  ; note\nk = v\n" + "".join(f"[s{i}]\rk=v{i}\r" for i in range(3)) + "\n"
    (piece,) = chunk_file_result("app.ini", text.encode()).pieces
    assert piece.body.split("\n") == ["L1 [db] host = x", "L3 a:k = v", "L4 a:[s0]\rk = v0\r[s1]\rk=v1\r[s2]\rk=v2"]


def test_broken_yaml_keeps_nesting_from_indentation():
    assert entries("broken.yaml") == [
        "L2 server:host = example.org",
        "L3 server:port = [8080",
        "L5 database:password = [REDACTED]",
        "L6 database:pool = 5",
    ]


def test_a_large_config_splits_into_contiguous_parts_covering_the_file():
    text = "\n".join(f"key_{i:03d}_name = value number {i}" for i in range(300)) + "\n"
    pieces = chunk_config("big.ini", text, ChunkOptions(config_max_chars=1000)).pieces
    n = len(pieces)
    assert n > 5
    assert [p.meta for p in pieces] == [{"part": k, "parts": n} for k in range(1, n + 1)]
    assert pieces[0].start_line == 1 and pieces[-1].end_line == 300
    assert all(a.end_line + 1 == b.start_line for a, b in zip(pieces, pieces[1:]))
    assert all(len(p.text) <= 1000 for p in pieces)
    assert sum(p.body.count("\n") + 1 for p in pieces) == 300


def test_a_huge_single_value_is_sliced_not_truncated():
    text = '{"blob": "' + "a" * 5000 + '"}\n'
    pieces = chunk_structured("blob.json", text, ChunkOptions(config_max_chars=1000)).pieces
    assert len(pieces) == 6
    assert "".join(p.body for p in pieces) == "L1 blob = " + "a" * 5000
    assert all((p.start_line, p.end_line) == (1, 1) for p in pieces)


_yaml_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(min_size=1, max_size=8), children, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_yaml_value, st.lists(st.sampled_from(["", "# note", "  bad: [", "- x", "key: value", "\t", ":"]), max_size=5))
def test_generated_yaml_is_always_covered(value, noise):
    import yaml

    text = yaml.safe_dump(value, sort_keys=False) + "\n".join(noise)
    if not text.strip():
        return
    direct = chunk_structured("gen.yaml", text, ChunkOptions(config_max_chars=300))
    assert_lossless(direct.pieces, text)
    assert_lossless(chunk_file("gen.yaml", text.encode(), ChunkOptions(config_max_chars=300)), text)


# The pattern JSON was read with before: one scan of the text (the specification on small inputs; a run of quotes
# or of `/*` that never close cost the square of the run).
_JSON_SPEC = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|[{}\[\],:]|[^\s{}\[\],:"/]+|/|"', re.S)
_JSON_FRAGMENTS = ['"', "\\", '\\"', "/", "*", "/*", "*/", "//", "\n", " ", "\t", "a", "1", "{", "}", "[", "]", ",",
                   ":", "\u00a0", "\r", '"a"', "\\\n"]


def test_json_tokens_are_the_patterns_on_any_mix_of_quotes_escapes_and_comments():
    from chunkers.config import _json_tokens

    rng = random.Random(11)
    for _ in range(3000):
        text = "".join(rng.choice(_JSON_FRAGMENTS) for _ in range(rng.randint(0, 50)))
        want = [(m.group(), m.start()) for m in _JSON_SPEC.finditer(text) if not m.group().startswith(("//", "/*"))]
        assert _json_tokens(text) == want, text


@pytest.mark.parametrize("text", ['{"a": "' + '\\"' * 32_000, "x /*" * 32_000],
                         ids=["escaped-quotes", "unclosed-comments"])
def test_json_that_never_closes_a_string_or_a_comment_is_read_in_linear_time(text):
    # 62 KB of escaped quotes in one string: 13 CPU s on main (each quote's string read on to the line's end); 125 KB
    # of `/*`: 15 s. Now 0.05 and 0.09 s; the bound is generous, as the redactor's worst cases' are.
    start = time.process_time()
    result = chunk_file_result("appsettings.json", text.encode())
    assert time.process_time() - start < 1.5
    assert result.pieces and any("did not parse" in note for note in result.notes)


@pytest.mark.parametrize("name,text", [
    ("f.json", '{"' + "k" * 300_000 + '": 1}'),
    ("f.ini", "x <template>" * 25_000 + "\n"),
    ("f.yaml", "k" * 300_000 + ": 1\n"),
])
def test_a_key_longer_than_a_part_rides_its_parts_as_a_short_name(name, text):
    # The entry is cut into parts of config_max_chars, each carrying its section's symbol: the whole key rode every
    # part (300 KB: 51 parts, 15 MB of symbol names, 3 CPU s; the square of the key).
    pieces = chunk_file_result(name, text.encode()).pieces
    assert len(pieces) > 40
    names = [s.name for p in pieces for s in p.symbols]
    assert names and all(len(n) <= 200 and text.lstrip('{"').startswith(n) for n in names)


def test_a_long_keys_short_name_keeps_no_part_of_a_secret_it_cuts():
    token = "ghp_" + "R8vK2mXq9LpZ4tYbW3nJ6hD1sF5gA7cE0uQi"
    line = "x" * 190 + " " + token + " " + "y" * 20_000
    [name] = {s.name for p in chunk_file_result("f.ini", line.encode()).pieces for s in p.symbols}
    assert "ghp_" not in name and "R8vK" not in name and len(name) <= 200
