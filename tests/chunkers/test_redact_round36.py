"""Thirty-sixth round: security-code-scan/security-code-scan (development from this round) held secrets in forms no
rule read: `new NetworkCredential(Guid.NewGuid().ToString(), "…")` (the user given by a call), Visual Basic's `New
PasswordDeriveBytes("…", …)` (`New` capitalised) and `Const PWD As String = "…"` (a typed declaration). Found now: a
credential constructor's first argument may be a call (`a.B().C()`), `new` is read as `New` and `NEW` too, and the
type of a typed declaration may sit between a secret's name and `=` in the languages the chunkers read: VB's `As
Type`, Go's `string`, Rust's `&str` (`&'static str`), C's array brackets (`API_KEY[]`, `[32]`); Kotlin's, Swift's,
TypeScript's `: Type` were read already. The `.pgpass` rule reads fields holding libpq's escapes (`\\:`, `\\\\`: an IPv6
host `\\:\\:1`, a user `us\\:er`). Kept: the same declarations with the empty literal, a placeholder, an environment
variable's name, UI text with blanks, a name whose last word is no secret's (`passwordLabel`, `tokenType`,
`secretName`, `keySize`), a credential's password given by a name, and an HTTP header's name under a token's name
(`contentTypeToken = "Content-Type"`), a section's header ending in `\\n` (`"[secrets]\\n"`) and a lexer's marker
(`END_TOKEN = "EndGlobalSection"`), the last three redacted on main in other forms. Values are made up here."""

import time

from tests.chunkers.redact_asserts import GENERATED, lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-91"

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    ("Dim cred = New NetworkCredential(Guid.NewGuid().ToString(), pass)",
     f'Dim cred = New NetworkCredential(Guid.NewGuid().ToString(), "{PW}")', PW),
    ("var cred = new NetworkCredential(GetUser(), password);",
     f'var cred = new NetworkCredential(Guid.NewGuid().ToString(), "{PW}");', PW),
    ('Dim pdb = New PasswordDeriveBytes(input, New Byte() {0, 1, 2, 3})',
     f'Dim pdb = New PasswordDeriveBytes("{PW}", New Byte() {{0, 1, 2, 3}})', PW),
    ('Const PWD As String = ""', f'Const PWD As String = "{PW}"', PW),
    ('Dim passwordLabel As String = "Enter password"', f'Dim password As String = "{PW}"', PW),
    ('Private Const TokenType As String = "Bearer"', f'Private Const ApiKey As String = "{GENERATED}"', GENERATED),
    ('Public Shared ReadOnly SecretName As String = "db-secret"',
     f'Public Shared ReadOnly Secret As String = "{GENERATED}"', GENERATED),
    ('var password string = "DB_PASSWORD"', f'var password string = "{PW}"', PW),
    ('var tokenType string = "Bearer"', f'const apiKey string = "{GENERATED}"', GENERATED),
    ('const PASSWORD_ENV: &str = "DB_PASSWORD";', f'const API_KEY: &str = "{GENERATED}";', GENERATED),
    ('let password: &str = "";', f'let password: &\'static str = "{PW}";', PW),
    ('static const char SECRET_NAME[] = "db-secret";', f'static const char API_KEY[] = "{GENERATED}";', GENERATED),
    ('char password[32] = "<your-password>";', f'char password[32] = "{PW}";', PW),
    ("localhost:5432:app:us\\:er:*", f"localhost:5432:app:us\\:er:{PW}", PW),
    ("\\:\\:1:5432:app:app_user:", f"\\:\\:1:5432:app:app_user:{PW}", PW),
]

KEPT = [
    'Dim keySize As Integer = 256',
    'Dim password As String = "<your-password>"',
    'Dim password As String = "Enter your password here"',
    'val passwordLabel: String = "Enter your password"',
    'let secretName: String = "db-secret"',
    'var password string = ""',
    # an HTTP header's name under a token's name (trufflehog's fastlypersonaltoken test: redacted on main as
    # `contentTypeToken := "…"`, reached in Go's typed form by this round)
    'const contentTypeToken string = "Content-Type"',
    'contentTypeToken := "Content-Type"',
    # a section's header ending in an escaped line end (ripsecrets' ignore_info.rs), a lexer's marker (sonar-dotnet's
    # compliant `END_TOKEN`): both redacted on main in other forms, reached in Rust's and VB's by this round
    'const SECRETS_SECTION_HEADER: &str = "[secrets]\\n";',
    'SECRETS_SECTION_HEADER = "[secrets]\\n"',
    'Private END_TOKEN As String = "EndGlobalSection"',
    'END_TOKEN = "EndGlobalSection"',
]

REDACTED_CASES = [
    ('NEW NetworkCredential(a.User(), "t0ps3cr3t")', "t0ps3cr3t"),
    ('Dim password As String = "t0ps3cr3t"', "t0ps3cr3t"),
    ('    password string = "t0ps3cr3t"', "t0ps3cr3t"),
    ('pub const DB_PASSWORD: &str = "t0ps3cr3t";', "t0ps3cr3t"),
    ("db.example.com:5432:app\\:prod:app_user:t0ps3cr3t", "t0ps3cr3t"),
    ('api_token = "EndGlobalSection"', "EndGlobalSection"),
    ('password = "t0ps3cr3t\\n"', "t0ps3cr3t"),
]

LINES = [
    ("Module Settings\n    Private Const Name As String = \"orders\"\n"
     f"    Private Const ApiKey As String = \"{GENERATED}\"\nEnd Module\n", GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
test_only_the_values_line_changes = lines_test(LINES)


def test_the_new_forms_are_read_in_linear_time():
    """Worst cases of the new pattern parts (benchmarks/redact_worst_case.py's typed_* and cred_ctor_*), 60 KB each:
    every one under 0.1 CPU s here; the bound is generous."""
    from chunkers.redact import redact_text

    def rep(unit, tail="", head="", size=60_000):
        return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail

    for text in (rep(" ", 'As String = "x"', "password"), rep('password As String = x ', '"x"'),
                 rep("a.", ' = "x"', "password As "), rep("password string ", '= "x"'),
                 rep("password: &'a str ", '= "x"'), rep("1", '] = "x"', "password["),
                 rep("a()", '"x")', "new NetworkCredential("), rep("New NetworkCredential(a() ", '"x")')):
        t = time.process_time()
        redact_text(text)
        assert time.process_time() - t < 1.0
