"""Worst cases of the secrets redactor (issue 33, "no input takes a repo down"; benchmarks/secrets_recall.md, "Worst
cases (2026-12-04)"). Each timed case failed its CPU bound on main's redactor (f98fcfa) and passes here; the bounds are
generous (several times this code's time on a loaded two-core machine, well under main's). The forms rewritten for
speed are checked to give what main gave on lines of ordinary size. Values are made up here."""

import time

import pytest

from chunkers import redact

PW = "Tr4in-Ledger-91"

# What main's redactor gives on each line (every pattern built on a secret's name, and _WEAK_QUOTED), unchanged.
AS_ON_MAIN = [
    ('db.apassword_x = "Tr4in-Ledger-91"',
     'db.apassword_x = "[REDACTED]"'),
    ('my.app-secret: "Tr4in-Ledger-91"',
     'my.app-secret: "[REDACTED]"'),
    ('01_hardcoded_password: Tr4in-Ledger-91',
     '01_hardcoded_password: [REDACTED]'),
    ('DB_PASSWORD=Tr4in-Ledger-91',
     'DB_PASSWORD=[REDACTED]'),
    ('  - export GITHUB_TOKEN=Tr4in-Ledger-91',
     '  - export GITHUB_TOKEN=[REDACTED]'),
    ('os.putenv("APP_SECRET_KEY", "Tr4in-Ledger-91")',
     'os.putenv("APP_SECRET_KEY", "[REDACTED]")'),
    ('Session("UserPassword") = "Tr4in-Ledger-91"',
     'Session("UserPassword") = "[REDACTED]"'),
    ('["api_key", "Tr4in-Ledger-91"]',
     '["api_key", "[REDACTED]"]'),
    ('putenv("DB_PASSWORD=Tr4in-Ledger-91")',
     'putenv("DB_PASSWORD=[REDACTED]")'),
    ('if ("Tr4in-Ledger-91".equals(userPassword)) {',
     'if ("[REDACTED]".equals(userPassword)) {'),
    ('if (userPassword.equals("Tr4in-Ledger-91")) {',
     'if (userPassword.equals("[REDACTED]")) {'),
    ('if (password.equals(other)) {',
     'if (password.equals(other)) {'),
    ('if (strcmp($this->db_password, "Tr4in-Ledger-91") == 0)',
     'if (strcmp($this->db_password, "[REDACTED]") == 0)'),
    ('std::string api_secret("Tr4in-Ledger-91");',
     'std::string api_secret("[REDACTED]");'),
    ('JWT_PASSWORD = TextCodec.BASE64.encode("VGhpcyBpcyBhIHNlY3JldCBrZXk=")',
     'JWT_PASSWORD = TextCodec.BASE64.encode("[REDACTED]")'),
    ("char[] password = { 's', 'e', 'c', 'r', 'e', 't', '9', 'X' };",
     'char[] password = { [REDACTED] };'),
    ('#define API_KEY "Tr4in-Ledger-91"',
     '#define API_KEY "[REDACTED]"'),
    ('password = hunter2 with spaces',
     'password = [REDACTED]'),
    ('api_key = self.api_key',
     'api_key = self.api_key'),
    ('if ("Tr4in-Ledger-91" == password)',
     'if ("[REDACTED]" == password)'),
    ('const token = process.env.TOKEN || "Tr4in-Ledger-91";',
     'const token = process.env.TOKEN || "[REDACTED]";'),
    ('getSecret: () => "Tr4in-Ledger-91",',
     'getSecret: () => "[REDACTED]",'),
    ('x_auth_key = "Tr4in-Ledger-91"',
     'x_auth_key = "[REDACTED]"'),
    ('apiKey: "abcdefGHIJ0123456789"',
     'apiKey: "[REDACTED]"'),
    ('var authToken = "abcdefGHIJ0123456789";',
     'var authToken = "[REDACTED]";'),
    ('password_policy = "Tr4in-Ledger-91"',
     'password_policy = "Tr4in-Ledger-91"'),
    ('.password = "Tr4in-Ledger-91"',
     '.password = "[REDACTED]"'),
    ('$password = "Tr4in-Ledger-91";',
     '$password = "[REDACTED]";'),
    ('@secret = "Tr4in-Ledger-91"',
     '@secret = "[REDACTED]"'),
]


@pytest.mark.parametrize(("line", "expected"), AS_ON_MAIN)
def test_ordinary_lines_are_redacted_as_on_main(line, expected):
    assert redact.redact_text(line) == expected


def _redacts_quickly(text: str, expected: str, bound: float = 1.5) -> None:
    """redact_text(text) gives `expected` within `bound` CPU seconds."""
    t = time.process_time()
    out = redact.redact_text(text)
    cpu = time.process_time() - t
    assert out == expected
    assert cpu < bound


@pytest.mark.parametrize("head", ["a", "1"])
@pytest.mark.parametrize(("tail", "as_on_main"), [
    (' = "xyzzy plain words"', ' = "xyzzy plain words"'),  # a plain phrase: kept
    (' = x ? "a" : "b"', " = [REDACTED]"),  # an ini line's unquoted value: redacted, as main does on a short name
    (": [x", ": [x"),
])
def test_a_long_name_run_of_secret_words_is_read_once(head, tail, as_on_main):
    # 45 KB of one name run holding 5,000 secret words before an operator whose value is kept: main retried the rest
    # of each pattern at every secret word, giving the run back character by character (about 7-30 CPU s; 2.7 s at
    # 27 KB for the first tail); here a name is its whole run, read once (0.1 s)
    assert redact.redact_text(head + "apassword" * 3 + tail) == head + "apassword" * 3 + as_on_main
    _redacts_quickly(head + "apassword" * 5000 + tail + "\n", head + "apassword" * 5000 + as_on_main + "\n")


def test_a_long_name_run_still_names_its_secret():
    # the same run before a literal: redacted, as main redacts it (slowly) and as it redacts a short run
    assert redact.redact_text("a" + "apassword" * 3 + f' = "{PW}"') == "a" + "apassword" * 3 + ' = "[REDACTED]"'
    _redacts_quickly("a" + "apassword" * 5000 + f' = "{PW}"\n', "a" + "apassword" * 5000 + ' = "[REDACTED]"\n')


def test_a_long_dotted_run_before_a_fallback_is_read_once():
    # _WEAK_QUOTED tried its lazy name from every word of `a.a.a.…` and read the run to its end from each: 20 KB took
    # about 10 CPU s on main; it now runs only on a line holding a weak name's word, an operator and a literal
    text = "token = " + "a." * 10_000 + ' || "x"\n'
    _redacts_quickly(text, text)
    assert redact.redact_text('token = a.b || "x"; x_auth_key = "abcdefGHIJ0123456789"') == (
        'token = a.b || "x"; x_auth_key = "[REDACTED]"')


def test_a_long_dotted_run_is_read_once_where_a_weak_name_follows():
    # the same run on a line holding a weak name's literal (so the cheap test passes): main read the run from each `a`
    # (20 KB: about 10 CPU s); a long line is searched only from the runs that end at a weak name's last word
    text = "token = " + "a." * 10_000 + ' || "x"; x_key = "hello world again"\n'
    _redacts_quickly(text, text)
    text = "token = " + "a." * 10_000 + ' || "x"; x_key = "aB3dE5gH7jK9mN1pQ"\n'
    _redacts_quickly(text, text.replace("aB3dE5gH7jK9mN1pQ", "[REDACTED]"))
    assert redact.redact_text('x_key = "aB3dE5gH7jK9mN1pQ"') == 'x_key = "[REDACTED]"'


@pytest.mark.parametrize("tail", ['xkey = "hello world again"', 'password = "unclosed'])
def test_a_dotted_run_of_word_starts_is_tried_once(tail):
    # every `a` of `a.a.a.…` is a word boundary where _QUOTED_ASSIGN may start a name, and each start read the run to
    # its end (no secret word, or a quote left open): 10 KB took 11-13 CPU s on main; now each run's first start only
    text = "a." * 5000 + tail + "\n"
    _redacts_quickly(text, text)
    text = ("a." * 980 + tail + "\n") * 10  # lines under 2,000 characters, searched whole on main (0.5 s)
    _redacts_quickly(text, text, 0.25)


@pytest.mark.parametrize("pad", ["", "x = 1; " * 40, "y " * 1100])  # a short line, a longer one, a long one
@pytest.mark.parametrize("name", ["éa.password", "é$password", ".-password", "a.b.c_secret", "@token", "1.secret"])
def test_a_name_found_after_the_runs_first_start_as_on_main(pad, name):
    # a run whose first character cannot begin a name (`é`, `.`) is searched from its next word start, as on main
    assert redact.redact_text(pad + name + f' = "{PW}"') == pad + name + ' = "[REDACTED]"'


@pytest.mark.parametrize("tail", ['xkey = base64.b64decode("abcdefghijklmnop")', "xkey = { 'a', 'b' }"])
def test_a_run_before_an_encoded_or_spelt_literal_is_tried_once(tail):
    # _WRAPPED_LITERAL and _CHAR_ARRAY start a name at any character: each of 10,000 read the run to its end (no
    # secret word in it): about 23-25 CPU s on main; now each run's first start only
    text = "a" * 10_000 + tail + "\n"
    _redacts_quickly(text, text)
    pad = "x = 1; " * 40  # a line long enough to be searched from its runs' first starts, as main redacts it
    assert redact.redact_text(pad + 'db.password = base64.b64decode("VGhpcyBpcyBhIHNlY3JldCBrZXk=")') == (
        pad + 'db.password = base64.b64decode("[REDACTED]")')
    assert redact.redact_text(pad + "char[] password = { 's', 'e', 'c', 'r', 'e', 't', '9', 'X' };") == (
        pad + "char[] password = { [REDACTED] };")


def test_a_dotted_argument_of_a_comparison_call_is_read_once():
    # _CMP_CALL tried the name after each `a.` of its argument, reading the rest from each: 10 KB took 13 CPU s on main
    text = "strcmp(" + "a." * 5000 + 'xkey, "abc")\n'
    _redacts_quickly(text, text)
    for name in ("$this->db_password", "a.b->c.secret", "a.b.auth", "x::y.auth"):  # as on main
        assert redact.redact_text(f'strcmp({name}, "aB3dE5gH7jK9mN1pQ")') == f'strcmp({name}, "[REDACTED]")'


@pytest.mark.parametrize("unit", ["a." * 113 + 'password = "unclosed', "a" * 230 + "xkey = { 'a', 'b' }"])
def test_short_distinct_lines_are_tried_once_per_run(unit):
    # 100 KB of distinct lines of about 250 characters: main searched each whole, 3.3-6.8 CPU s; now about 0.2 s
    text = "".join(f"{i:06d} {unit}\n" for i in range(100_000 // (len(unit) + 8)))
    _redacts_quickly(text, text)


def test_short_distinct_lines_with_a_weak_name_are_tried_from_its_runs():
    # 100 KB of distinct 290-character lines of the form above: main searched each whole, 3.6 CPU s; now about 0.3 s
    unit = "token = " + "a." * 120 + ' || "x"; x_key = "hello world again"'
    text = "".join(f"{i:06d} {unit}\n" for i in range(100_000 // (len(unit) + 8)))
    _redacts_quickly(text, text)
