"""Thirty-second round: the forms GitHub's secret-scanning-custom-patterns (development from this round) held that
the redactor missed in the thirty-first. Found: a password as a YAML block scalar (`password: |`, the value on the
lines below), a short password in a URL's query (`jdbc:mysql://…?user=root&password=toor`), Grafana's legacy API key
alone (`eyJrIjoi…`, 40 characters after the prefix), Okta's `SSWS 00…` outside an Authorization header, a Spring-style
`…datasource.password` property whatever its value's look (`= root`, `='QuotedSpringPassword'`), a UUID after the
word `Bearer`. Kept: prose, a reference or a sample word under such a name, a name that only begins with a password's
word, a flag's value in a query, a query outside a URL, a property line that is code, documentation about bearer
tokens, a placeholder token. Values are made up here."""

from tests.chunkers.redact_asserts import lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-92"
GRAFANA = "eyJrIjoiRkFLRWtleUZvclRlc3RzT25seTAxMjM0NTY3ODlhYmNkZWYi"  # {"k":"FAKEkeyForTestsOnly0123456789abcdef"
OKTA = "00FAKEtokenForTestsOnly0123456789abcdefghi"  # 00 and 40
UUID = "3f6c2a9e-7b1d-4c8e-9a2f-5d0b6e1c4a7f"

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    # newly found: a YAML block scalar under a password's name
    ("password_help: |\n  secret123\nnext: 1", f"password: |\n  {PW}\nnext: 1", PW),
    ("reset_password: >\n  Click the link to reset your password.\n", f"db:\n  password: >-\n    {PW}\n  user: x", PW),
    ("password: |\n  {{ .Values.db.password }}\n", f"client_secret: |\n  {PW}\n", PW),
    # newly found: a short password in a URL's query
    ("https://h.example/x?password=1&a=b", "jdbc:mysql://localhost:3306/mydb?user=root&password=toor", "toor"),
    ("GET /login?password=toor", "https://h.example/login?user=bob&password=r00t", "r00t"),
    ("https://h.example/x?password={pw}", "postgres://h.example/db?sslmode=off&pwd=s3cr", "s3cr"),
    # newly found: Grafana's legacy API key alone
    ("eyJrIjoi is the prefix of a Grafana key", GRAFANA, GRAFANA),
    # newly found: Okta's token after its scheme word
    ("Authorization: SSWS {apiToken}", f"SSWS {OKTA}", OKTA),
    ("SSWS ${OKTA_TOKEN}", f"okta token: SSWS {OKTA} (rotated)", OKTA),
    # newly found: a Spring-style datasource password property
    ("spring.datasource.password=${DB_PASSWORD}", "spring.datasource.password = root", "root"),
    ("this.jdbc.password = pw;", "spring.datasource.password='QuotedSpringPassword'", "QuotedSpringPassword"),
    ("config.datasource.password = getPassword()", f"quarkus.datasource.password={PW}", PW),
    # newly found: a UUID after `Bearer`
    ("Send a Bearer token in the Authorization header.", f"Bearer {UUID}", UUID),
    ("Bearer 00000000-0000-0000-0000-000000000000", f"curl sent Bearer {UUID} and got 200", UUID),
]

KEPT = [
    "password: >-\n  password\n",
    "password: |\n  ${DB_PASSWORD}\n",
    "description: |\n  The password must be long.\n",
    "https://h.example/x?password=true",
    "https://h.example/x?password=****",
    'let url = "https://example.com?password=foo";',
    "https://api.example.com/v1?password=&token=",
    "spring.datasource.password=",
    "spring.datasource.password=password",
    "spring.datasource.password-file=/run/secrets/db",
    "datasource.password=ENC(G6N718UuyPE5bHyWKyuLQSm02auQPUtm)",
    "Set spring.datasource.password to your password.",
    "self.datasource.password = new_password",
    "bearer_token_uuid = None",
]

REDACTED_CASES = [
    (f"  Authorization: Bearer {GRAFANA}", GRAFANA),
    (f"datasource.password={PW}", PW),
]

LINES = [
    (f"db:\n  host: db.example\n  password: |\n    {PW}\n\n  user: x\nother_field: foo", PW),
    ("# MySQL\nspring.datasource.url=jdbc:mysql://localhost:3306/test\nspring.datasource.username=dbuser\n"
     f"spring.datasource.password={PW}\nspring.jpa.database-platform=org.hibernate.dialect.MySQL5InnoDBDialect", PW),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
test_only_the_values_line_changes = lines_test(LINES)


def test_a_config_lines_value_followed_by_a_run_of_blanks_is_read_in_linear_time():
    # _CONFIG_LINE's value was lazy before `[ \t]*$`: from each blank of a run inside the value it read the run to its
    # end again (`password=a`, 20,000 blanks, `b`: 2.4 CPU s for the pattern on main); now greedy, the same matches
    import time

    from chunkers import redact, secret_lines

    line = "password=a" + " " * 20_000 + "b"
    t = time.process_time()
    assert secret_lines._CONFIG_LINE.sub("", line) == ""
    assert time.process_time() - t < 0.5
    # and its judge's trailing-comment strip (_TRAILING_COMMENT) from each blank of the run: the whole line 3.1 s on main
    secret_lines._redact_line.cache_clear()
    t = time.process_time()
    assert redact.redact_text(line) == line  # a value with blanks: kept, as on main
    assert time.process_time() - t < 0.5
    assert secret_lines._TRAILING_COMMENT.sub("", "x  \t # note") == "x"
    assert secret_lines._CONFIG_LINE.match("db_password: s3cr3t-x  ").group("value") == "s3cr3t-x"
    assert secret_lines._CONFIG_LINE.match("db_password: s3cr3t-x  \r").group("value") == "s3cr3t-x  \r"  # as on main
