"""Thirty-fourth round: find-sec-bugs/find-sec-bugs (held out in the thirty-third round, development from this one)
held `v.setPassword("…")` among its misses: a setter named for a secret, given one literal and nothing else. No rule
read it (a call's secret-named pair needs the name quoted: `setProperty("password", "…")`), in any language: JSch's
`session.setPassword("…")`, a DataSource's, a builder's `.withApiKey("…")`, Python's `set_password('…')`, C#'s
`SetSecret("…")`. Found now: `set`, `SET` or `with`, then `_` or a capital, a name ending in a secret's word (and
digits), and one literal argument, judged as a quoted call's value is. Kept: a setter whose secret word is not last
(`setPasswordEncoder("bcrypt")`, `setTokenizer(…)`, `setSecretName(…)`), a name, a reference, a placeholder, an
empty literal, a concatenation, a label's text. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-91"

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    ('ds.setPassword("");', f'ds.setPassword("{PW}");', PW),
    ("ds.setPassword(password);", f'    dataSource.setPassword( "{PW}" );', PW),
    ('ds.setPassword("${DB_PASSWORD}");', f"session.setPassword('{PW}');", PW),
    ('cfg.setPasswordEncoder("bcrypt");', 'cfg.setPassword("bcrypt-9Xq2v")', "bcrypt-9Xq2v"),
    ('x.setSecretName("orders-db");', f'x.SetSecret("{GENERATED}");', GENERATED),
    ('builder.withApiKey("your-api-key");', f'builder.withApiKey("{GENERATED}")', GENERATED),
    ("user.set_password(get_password())", "user.set_password('S3cure!pass')", "S3cure!pass"),
    ('tok.setTokenizer("bert-base-uncased");', f'req.setAuthToken("{GENERATED}");', GENERATED),
    ('ds.setPassword("pw" + suffix);', f'ks.setKeyStorePassword("{PW}")', PW),
]

KEPT = [
    'label.setText("Password:");',
    'field.setPasswordHint("at least 8 characters");',
    'cfg.setTokenType("Bearer");',
    'props.setPasswordCharacter("*");',
    'x.settoken("Zq8vN3xL0pR7tY2wK5mB4cD");',  # no capital or `_` after `set`: not a setter's name
    'q.without_password("Zq8vN3xL0pR7tY2wK5mB4cD");',
    'ds.setPassword("xxxxxxxx");',
    'ds.setPassword("changeme");',
]

REDACTED_CASES = [
    ('v.setPassword("s3cur1typ4ss");', "s3cur1typ4ss"),
    ('SET_PASSWORD("Tr4in-Ledger-91")', PW),
    (f'jsch.getSession("u", "h").setPassword2("{PW}");', PW),
    # the literal's prefixes and blanks the pattern reads (C#'s verbatim `@"…"`, a byte string, a tab): its gate let
    # only `("`, `('`, `(\`` and `( ` through at first
    (f'x.SetSecret(@"{GENERATED}");', GENERATED),
    (f'ds.setPassword(\t"{PW}");', PW),
    (f'ds.set_password(b"{PW}")', PW),
]

LINES = [
    ("class Db {\n  void open() {\n    DataSource ds = new DataSource();\n"
     f'    ds.setPassword("{PW}");\n    ds.setUser("app");\n  }}\n}}\n', PW),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
test_only_the_values_line_changes = lines_test(LINES)
