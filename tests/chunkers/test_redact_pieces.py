"""The registry's redaction pass over a file's pieces: whatever shortcut it
takes (source lines redacted once, outlines checked line by line against the
source), every field of every piece comes out as `redact_text` of what the
chunker produced, except that a slice or a clip of a line longer than a piece
takes the whole line's redaction (at least as strict as the slice's own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkers import ChunkOptions, chunk_file
from chunkers.csharp import chunk_csharp
from chunkers.model import ChunkPiece, ChunkSymbol
from chunkers.redact import REDACTED, redact_pieces, redact_text
from chunkers.secret_lines import (
    _CALL_PAIR, _CLI_FLAG, _CONFIG_LINE, _CONFIG_START, _CONN_STRING, _C_DEFINE, _DECODE_CALL, _INI_LINE, _LABELLED,
    _NPMRC_CRED, _PASS_NAMED, _QUOTED_ASSIGN, _QUOTED_ENV, _SPACED_PAIR, _URL_CRED, _URL_CRED_MORE, _WEAK_QUOTED,
    _WEAK_START, _WEAK_UNQUOTED, _XML_PAIRS, _cli_flag, _config_line, _conn_string, _decoded_literal, _ini_line,
    _labelled, _npmrc, _pass_named, _quoted, _quoted_call, _quoted_env, _redact_line, _spaced_pair, _url_cred,
    _url_cred_more, _weak_quoted, _weak_unquoted, _xml_pair,
)
from chunkers.secret_names import _has_secret_word
from chunkers.secret_tokens import (
    _AUTH_HEADER, _COMMAND_CRED, _DOCKER_ENV_SPACE, _DOTENV_LINE, _ENV_ASSIGN, _HEADER_FLAG, _SQL_PASSWORD, _TOKEN,
    _apply_rules, _auth_header, _command_cred, _dotenv_line, _env_assign, _header_flag, _sql_password, _token,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "csharp"
GATEWAY = "PaymentGatewayClient.cs"
# Planted in GATEWAY: a connection string in a property initializer, a
# password as a parameter default.
SECRETS = ["Gateway-Db-Pa55", "User ID=checkout", "Sandb0x-Pa55word"]
QUAL = "// Checkout.Payments.PaymentGatewayClient\n"


def load(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def dumped(piece: ChunkPiece) -> str:
    return json.dumps(piece.to_dict(), ensure_ascii=False)


def test_secrets_in_members_of_a_large_type_are_redacted_in_every_shape():
    text = load(GATEWAY)
    raw = chunk_csharp(GATEWAY, text)
    shapes = [(p.chunk_type, p.start_line, p.end_line) for p in raw]
    assert shapes[0] == ("cs_class", 1, 22) and shapes[-2:] == [("cs_class_full", 1, 104), ("cs_class_full", 105, 135)]
    # Before redaction the secrets sit in the member chunks, the type's
    # outline (its skeleton, its analysis text, every member's context) and
    # the full type.
    head, prop, method = raw[0], raw[1], raw[3]
    assert (prop.start_line, method.start_line) == (23, 33)
    assert all(s in head.skeleton and s in head.analysis_text for s in SECRETS)
    assert SECRETS[0] in prop.text and SECRETS[2] in method.text
    assert all(s in p.analysis_text for p in raw if p.chunk_type == "cs_member" for s in SECRETS)
    assert all(s in raw[-2].text for s in SECRETS)

    pieces = chunk_file(GATEWAY, text.encode())

    assert [(p.chunk_type, p.start_line, p.end_line) for p in pieces] == shapes
    for piece in pieces:
        for secret in SECRETS:
            assert secret not in dumped(piece), f"{secret!r} leaked from {piece.chunk_type} {piece.start_line}"
    head, prop, method, full = pieces[0], pieces[1], pieces[3], pieces[-2]
    assert prop.text == (
        QUAL + "        /// <summary>The journal database (its credentials left here by mistake).</summary>\n"
        '        public string JournalDatabase { get; init; } = "Server=db;User ID=[REDACTED];Password=[REDACTED];";'
    )
    assert 'string password = "[REDACTED]")' in method.text
    for field in (head.skeleton, head.analysis_text, full.text):
        assert field.count(REDACTED) == 3
    for member in pieces[1:-2]:  # its own text, then the type's outline
        assert member.analysis_text.count(REDACTED) == member.text.count(REDACTED) + 3


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.cs")))
@pytest.mark.parametrize("options", [ChunkOptions(), ChunkOptions(type_max_chars=1500)], ids=["default", "split"])
def test_every_field_is_redact_text_of_the_chunker_output(name, options):
    text = load(name)
    raw = chunk_csharp(name, text, options)
    pieces = chunk_file(name, text.encode(), options)
    assert len(pieces) == len(raw)
    for got, want in zip(pieces, raw):
        assert got.text == redact_text(want.text)
        assert got.header == redact_text(want.header)
        assert got.analysis_text == redact_text(want.analysis_text)
        assert got.skeleton == redact_text(want.skeleton)
        assert [(s.name, s.parent) for s in got.symbols] == [
            (redact_text(s.name), redact_text(s.parent)) for s in want.symbols]
        assert got.meta == want.meta


def test_a_file_without_secrets_comes_through_unchanged():
    text = load("StockLedger.cs")
    raw = chunk_csharp("StockLedger.cs", text)
    assert len(raw[0].skeleton) > 2048  # large enough for the outline check against the source lines
    assert [p.to_dict() for p in chunk_file("StockLedger.cs", text.encode())] == [p.to_dict() for p in raw]


def test_outline_lines_that_are_not_lines_of_the_source_are_still_redacted():
    # A folded outline joins pieces of lines: a line of it may exist nowhere in
    # the (secret-free) source, and it is redacted on its own.
    source = "\n".join(f"    public int Value{i} {{ get; set; }}" for i in range(200)) + "\n"
    lines = source.splitlines()
    joined = '    private string ApiKey = "sk_live_joined_by_a_fold";'
    skeleton = "\n".join([*lines[:100], joined, *lines[100:]])
    piece = ChunkPiece(lines[0], "cs_class", 1, 1, analysis_text=lines[0] + "\n" + skeleton,
                       symbols=[ChunkSymbol("Value0", "property", "Demo", 1, 1)], skeleton=skeleton)

    [out] = redact_pieces([piece], source)

    assert out.text == lines[0]
    assert out.skeleton == skeleton.replace("sk_live_joined_by_a_fold", REDACTED)
    assert out.analysis_text == lines[0] + "\n" + out.skeleton
    [untouched] = redact_pieces([ChunkPiece(lines[0], "cs_class", 1, 1, skeleton="\n".join(lines))], source)
    assert untouched.skeleton == "\n".join(lines)


def _redact_line_without_hints(line: str) -> str:
    """`_redact_line` without its anchored pre-checks: every pattern on every line."""
    secret = _has_secret_word(line)
    line = _apply_rules(line, line.lower())  # the rule table: a rule runs where its hint is
    line = _TOKEN.sub(_token, line)
    line = _AUTH_HEADER.sub(_auth_header, line)
    if secret:
        line = _HEADER_FLAG.sub(_header_flag, line)
    line = _ENV_ASSIGN.sub(_env_assign, line)
    # a Dockerfile's `ENV NAME value`, judged as `ENV NAME=value` (hypothesis seed 141 drew `ENV Api-Token 'AzureAd:…'`)
    line = _DOCKER_ENV_SPACE.sub(_env_assign, line)
    line = _COMMAND_CRED.sub(_command_cred, line)
    line = _SQL_PASSWORD.sub(_sql_password, line)
    if "@" in line and "://" in line:
        # (its value judged as the redactor judges it: a mask, a hole or one character is kept)
        line = _URL_CRED.sub(_url_cred, line)
        line = _URL_CRED_MORE.sub(_url_cred_more, line)
    if ";" in line and "=" in line:
        line = _CONN_STRING.sub(_conn_string, line)
    if ("=" in line or ":" in line) and secret:
        if '"' in line or "'" in line or "`" in line:
            line = _QUOTED_ASSIGN.sub(_quoted, line)
        if _CONFIG_START.match(line):
            line = _CONFIG_LINE.sub(_config_line, line)
        for pattern in _XML_PAIRS:
            line = pattern.sub(_xml_pair, line)
    if secret or "_pass" in line.lower():
        line = _DOTENV_LINE.sub(_dotenv_line, line)
    line = _WEAK_QUOTED.sub(_weak_quoted, line)
    if _WEAK_START.match(line):  # a weak name's long unquoted value leading the line (`key=X-Api-Key: SK…`)
        line = _WEAK_UNQUOTED.sub(_weak_unquoted, line, count=1)
    if secret and _LABELLED.match(line):  # a value after a secret's label leading the line, one per line
        line = _LABELLED.sub(_labelled, line, count=1)
    if secret:
        line = _C_DEFINE.sub(_quoted_call, _CALL_PAIR.sub(_quoted_call, line))
        # (a secret among a string's blank-separated pairs: after _QUOTED_ENV, as in _redact_line)
        line = _INI_LINE.sub(_ini_line, _SPACED_PAIR.sub(_spaced_pair, _QUOTED_ENV.sub(_quoted_env, line)))
    # a name ending in `pass` (an account's: `SMTP_PASS='…'`), a literal decoded under a secret's name
    line = _DECODE_CALL.sub(_decoded_literal, _PASS_NAMED.sub(_pass_named, line))
    line = _CLI_FLAG.sub(_cli_flag, line)
    return _NPMRC_CRED.sub(_npmrc, line)


TOKENS = ["password", "ApiKey", "Token", "key", "Server", "User ID", "Pwd", "db", "x1", "=", ":", ":=", ";", '"',
          "'", "`", " ", "\t", "-", ".", "@", "://", "(", ")", "{", "}", "<", "\\", "\u00a0",
          "--", "value", "Value", "name", ":_auth", "$",
          # secrets by form and their commands (issue 16)
          "AKIAFAKEEXAMPLE00001", "ghp_FakeTokenForTests0001012345678ABCDEFGH", "eyJhbGciOi", ".", "eyJzdWIiOi",
          "c2lnbmF0dXJl", "sk_live_FakeStripeKey01", "Authorization", "Bearer ", "-e ", "export ", "DB_PASS",
          "--from-literal=", "create secret ", "WITH PASSWORD ", "IDENTIFIED BY ", "-u ", "user", "\\n",
          "https://hooks.slack.com/services/", "T0FAKE001/B0FAKE001/Fake0001"]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=14).map("".join))
def test_pre_checks_never_skip_a_redaction(line):
    assert _redact_line(line) == _redact_line_without_hints(line)


# Fragments of the lines the XML-pair, flag and .npmrc patterns are for, so that random
# lines reach them (the tokens above rarely spell a whole `key="…" value="…"`).
SHAPED = ['<add ', 'key=', 'value=', 'name=', '"ApiKey"', "'AzureAd:ClientSecret'", '"abc1"', "'x y'",
          '"$(K)"', "'true'", ' ', '--api-key', '-ApiKey', '--password', '--no-password', '--token-file', '=',
          '"', "'", 'abc1', 'TEXT', 'only', ':_authToken', '_auth', '$T', '/>', '-', ';', 'x',
          '-e ', 'DB_PASSWORD=', 'export ', 'NPM_TOKEN=', 'Authorization: ', 'Bearer ', 'AKIAFAKEEXAMPLE00001',
          'AuthenticationHeaderValue("Bearer", "', 'ENV ', 'ConvertTo-SecureString ', ' -AsPlainText',
          # issue 33: subscripts, setters, quoted NAME=value, ini lines, rule-table forms
          '["API_KEY"]', 'setProperty(', '("password", ', ' = ', '=> ', 'hunter2 x', 'sk-proj-', 'FAKE0123456789abcdefABCDEF',
          'mysql -p', 'sshpass -p ', '?sig=', 'PGPASSWORD=', 'gsk_', '#define ',
          # issue 33, second round: curl credentials and headers, Makefile operators, weak names, case-sensitive hints
          '-H "', 'X-Api-Key: ', 'Api-Token ', '-u ', ':', '?= ', '::= ', 'SONAR_LOGIN', 'user_auth', 'creds = ',
          'sha256~', 'SK0123456789abcdef0123456789abcdef', '1234567890123456|', 's.', 'A3-',
          # fourth round: a commented `.env` line, a multi-host URI
          '# ', 'SMTP_PASS=', 'pg://u:pw@h1:5432', ',u:pw@h2']


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(SHAPED), max_size=12).map("".join))
def test_pre_checks_never_skip_a_redaction_of_pairs_flags_and_npmrc(line):
    once = _redact_line(line)
    assert once == _redact_line_without_hints(line)
    assert redact_text(line) == once and redact_text(once) == once


def _one_long_line(kind: str, n: int) -> tuple[str, list[str]]:
    """A file whose code is one line far longer than a piece (a minified bundle), with secrets every
    few hundred characters: many are cut by a piece's edge or have their name in the piece before."""
    units, secrets = [], []
    for i in range(n):
        pw, tok = f"Zq{i:05d}xK9mTq2Lp", f"ghp_{i:06d}aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2"
        url_pw = f"w{i:05d}Pq7Rs8Tu9Vx"
        secrets += [pw, tok, url_pw]
        if kind == "js":
            units.append(f'function f{i}(){{var password="{pw}";var t="{tok}";'
                         f'return fetch("https://admin:{url_pw}@db.example.com/q")}}')
        elif kind == "py":
            units.append(f'f{i} = dict(password="{pw}", token="{tok}", url="postgres://admin:{url_pw}@db.example.com/x");')
        else:
            units.append(f'var a{i} = new C {{ Password = "{pw}", Token = "{tok}", '
                         f'Url = "postgres://admin:{url_pw}@db.example.com/x" }};')
    line = (";" if kind == "js" else " ").join(units)
    if kind == "cs":
        line = "class K { void M() { " + line + " } }"
    return line, secrets


@pytest.mark.parametrize("name", ["bundle.min.js", "generated.py", "Generated.cs"])
def test_a_line_longer_than_a_piece_is_redacted_as_one_line(name):
    """A line sliced into pieces takes the whole line's redaction: a piece redacted on its own
    would keep a secret cut by its edge, or one whose name ends the piece before."""
    line, secrets = _one_long_line(name.rsplit(".", 1)[-1], 300)
    whole = redact_text(line)
    assert not any(s in whole for s in secrets)
    pieces = chunk_file(name, (line + "\n").encode())
    assert len(pieces) >= 8 and all(p.start_line == p.end_line == 1 for p in pieces)
    blob = "\n".join(dumped(p) for p in pieces)
    left = [s[k:k + 8] for s in secrets for k in range(len(s) - 7) if s[k:k + 8] in blob]
    assert not left, f"{len(left)} fragments of planted secrets stored, first {left[:3]}"
    # Nothing lost or repeated: each kind's bodies (C# has the class's parts, its member's and the
    # whole class's), in order, are the line's redaction.
    for kind in {p.chunk_type for p in pieces}:
        assert "".join(p.text[len(p.header):] for p in pieces if p.chunk_type == kind) == whole, kind


def test_a_sliced_member_line_repeated_in_the_analysis_text_is_redacted_there_too():
    """A class member's one long line: its parts' analysis texts repeat the part's slice after the class's
    outline, where a slice redacted alone keeps a secret its edge cuts."""
    stmts = [f'var  password  =  "Zq{i:05d}xK9mTq2LpRb";  var  t  =  "ghp_{i:06d}aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2";'
             for i in range(300)]
    source = "export class K {\n  m(): void { " + " ".join(stmts) + " }\n  n(): number { return 1; }\n}\n"
    pieces = chunk_file("k.ts", source.encode())
    assert any(p.start_line == p.end_line == 2 and p.analysis_text for p in pieces)
    blob = "\n".join(dumped(p) for p in pieces)
    left = [f"{i:05d}xK9mTq" for i in range(300) if f"{i:05d}xK9mTq" in blob]
    left += [f"{i:06d}aB3cD4" for i in range(300) if f"{i:06d}aB3cD4" in blob]
    assert not left, left[:5]


def test_a_heading_longer_than_a_title_is_cut_after_its_redaction():
    """A heading's title is cut at MAX_TITLE_CHARS inside the breadcrumbs of every part: cut after redaction,
    so the cut keeps no start of a secret."""
    words = " ".join(f"password: Zq{i:03d}x7Kp2Lm9QrTw and" for i in range(12))
    source = f"# Setup {words}\n\nbody\n\n## Next\n\nmore\n"
    pieces = chunk_file("setup.md", source.encode())
    blob = "\n".join(dumped(p) for p in pieces)
    assert "Setup" in blob and not [i for i in range(12) if f"Zq{i:03d}" in blob]


TOKEN = "ghp_" + "a1B2c3D4e5" * 3 + "a1B2c3"


@pytest.mark.parametrize("name, source", [
    # a member of a one-line class: its outline line is cut from inside the line
    ("m.js", "class K{static c0={" + "a" * 200 + ':1,t:"' + TOKEN + '"};'
     + ";".join(f"static c{i}={{b:{i}}}" for i in range(1, 400)) + "}\n"),
    # a statement whose blanks the skeleton folds before cutting it
    ("b.js", "var  x = {" + ",  ".join(f'k{i}:  "{"y" * 30}"' for i in range(5)) + f',  t:  "{TOKEN}"'
     + ",  z:  1" * 1000 + "};\nfunction f(){\n" + "  return 1;\n" * 10 + "}\n"),
])
def test_an_outline_line_is_cut_after_its_redaction(name, source):
    """Outlines and signatures keep a long line's first 200-240 characters: cut after redaction, so a cut inside a
    line or of a line with folded blanks keeps no start of a secret (found by review; main stored 23-30 characters
    of the token)."""
    blob = "\n".join(dumped(p) for p in chunk_file(name, source.encode()))
    assert "a1B2c3D4e5" not in blob
