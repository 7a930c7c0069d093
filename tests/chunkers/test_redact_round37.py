"""Thirty-seventh round: a prompt's text under a name for a prompt was redacted as if it were the secret
(`password_prompt = "Password: "`, `const char *password_prompt = "Password: ";`), the look-alike the thirty-sixth
round left. One or two words of letters, the first capitalised, then a colon, under a name ending in prompt, label,
caption, hint or question, is a label asking for the secret: kept in every form. Under a password's own name the same
word stays a value (`password = "Password:"`, the twelfth round's policy: a password can be one word), and a twin with
a value in the label's place is still redacted. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test

PW = "Tr4in-Ledger-91"

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    ('password_prompt = "Password: "', f'password_prompt = "{PW}"', PW),
    ('const char *password_prompt = "Password: ";', f'const char *password_prompt = "{PW}";', PW),
    ("PASSWORD_PROMPT: 'Passwort:'", f"PASSWORD_PROMPT: '{PW}'", PW),
    ('"password_prompt": "Password:"', f'"password_prompt": "{PW}"', PW),
    ('Dim passwordPrompt As String = "Password:"', 'Dim password As String = "Password:"', "Password:"),
    ('api_key_label = "Key:"', f'api_key_label = "{GENERATED}"', GENERATED),
    ('self.token_hint = "Token:"', 'self.token_hint = "token:Zq8vN3xL0pR7"', "Zq8vN3xL0pR7"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
