"""Thirty-first round: the forms leaky-repo (development from this round) stored for want of a rule. Found:
WordPress's keys and salts given to define() (`define('NONCE_SALT', '…')`, `LOGGED_IN_KEY`), FileZilla's
`<Pass>…</Pass>` and `<Pass encoding="base64">…</Pass>`, a quoted key named exactly `pass` (`"pass": "…"`), an
.npmrc's `_auth = …` with blanks whose value is base64 of `user:password`, a URL whose user is an e-mail address
(`https://me@example.com:…@host`, a .git-credentials line). Kept: WordPress's placeholder phrase, a `_KEY` or `_SALT`
constant holding a name or a phrase, a `pass` element or key holding a verdict, a boolean, a number, a plain word, a
version or a reference, Python's `pass`, `_auth = ` code, a URL with a user and a port but no password. Values are
made up here."""

import base64
import time

from chunkers import redact
from tests.chunkers.redact_asserts import GENERATED, lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-91"
SALT = "k#9Lq{Vz2 |mR8>wT!eP4^yN7@cX1;bG6&hJ3+uD5~sF0(aE-oI*tY<nM]pW.zQ"  # a generator's 64, one blank
PAIR_B64 = base64.b64encode(b"deploy:" + PW.encode()).decode()

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    # newly found: WordPress's keys and salts
    ("define('AUTH_SALT', 'put your unique phrase here');", f"define('AUTH_SALT', '{SALT}');", SALT),
    ("define( 'WP_CACHE_KEY_SALT', 'example.com' );", f"define( 'NONCE_SALT', '{SALT}' );", SALT),
    ("define('CACHE_KEY', 'users_list');", f'define("LOGGED_IN_KEY", "{SALT}");', SALT),
    ("define('GREETING_KEY', 'This Is A Long Sentence With 3 Words, Really Long');",
     f"define('NONCE_KEY',        '{SALT}');", SALT),
    # newly found: FileZilla's password element, plain and base64
    ("<pass>true</pass>", f"<Pass>{PW}</Pass>", PW),
    ("<Pass>3</Pass>", f'<Pass encoding="base64">{PAIR_B64}</Pass>', PAIR_B64),
    ("<Pass>${FTP_PASS}</Pass>", f"    <Pass>{GENERATED}</Pass>", GENERATED),
    # newly found: a quoted key named exactly `pass`
    ('"pass": true,', '"pass": "hunter22",', "hunter22"),
    ('"pass": "skipped",', f"'pass' => '{PW}',", PW),
    ('"pass": "v1.2.3"', f'{{"user": "deploy", "pass": "{GENERATED}"}}', GENERATED),
    ('"pass": "${FTP_PASSWORD}"', '"pass": "s3cr3t!x"', "s3cr3t!x"),
    # newly found: an .npmrc's `_auth = …` with blanks, base64 of user:password
    ("_auth = self._auth_fn", "_auth = YWRtaW46YWRtaW4=", "YWRtaW46YWRtaW4="),
    # newly found: a URL whose user is an e-mail address
    ("ssh://git@github.com:22/org/repo.git", "https://user@example.com:password!#@498@github.com", "498"),
    ("git+ssh://git@github.com:org/pkg@v1.0", f"https://me@corp.example:{PW}@git.corp.example/x.git", PW),
    ("https://me@corp.example:${GIT_PASSWORD}@git.corp.example", f"https://me@corp.example:{PW}@git.corp.example",
     PW),
]

KEPT = [
    "define('NONCE_KEY', getenv('NONCE_KEY'));",
    "<Pass>fail</Pass>",
    '"pass": 3,',
    '"pass": "yes",',
    '"pass": "swordfish"',
    "results = {'pass': 12, 'fail': 0}",
    "if status == 'pass': return 'step2'",
    "    pass  # 'pass': 'x1'",
    "_auth = None",
    "_auth = get_default_auth_value",
    "_password = SomeLongIdentifierName",
    "docker://alpine@sha256:abcdef0123456789",
    "https://me@corp.example:****@git.corp.example",
]

REDACTED_CASES = [
    (f"define('SECURE_AUTH_SALT', '{SALT}');", SALT),
    (f'\t\t\t<Pass encoding="base64">{PAIR_B64}</Pass>', PAIR_B64),
]

LINES = [
    ("<?php\n/** Authentication unique keys and salts. */\ndefine('AUTH_KEY', 'put your unique phrase here');\n"
     f"define('LOGGED_IN_SALT', '{SALT}');\n$table_prefix = 'wp_';", SALT),
    ('{\n  "host": "example.com",\n  "port": 22,\n  "user": "root",\n  "pass": "hunter22",\n'
     '  "promptForPass": false\n}', "hunter22"),
    (f"<Server>\n  <Host>example.com</Host>\n  <User>root</User>\n  <Pass>{PW}</Pass>\n  <Port>21</Port>\n</Server>",
     PW),
    ('registry="https://registry.npmjs.org/"\nalways-auth=true\n_auth = YWRtaW46YWRtaW4=\n', "YWRtaW46YWRtaW4="),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
test_only_the_values_line_changes = lines_test(LINES)


def test_a_run_of_at_signs_after_a_urls_password_is_read_in_linear_time():
    # the password's `@` lookahead read to the line's end from each `@` (2.4 CPU s on main for the first text); it
    # now stops at the next `@`: the same matches
    for text, out in (("https://u:" + "@" * 20_000, "https://[REDACTED]:[REDACTED]@"),
                      ("https://u@e.com:x" + "@x" * 10_000, "https://[REDACTED]:[REDACTED]@x")):
        t = time.process_time()
        assert redact.redact_text(text) == out
        assert time.process_time() - t < 1.5
    assert redact.redact_text("https://me:p@ss@host/x") == "https://[REDACTED]:[REDACTED]@host/x"
