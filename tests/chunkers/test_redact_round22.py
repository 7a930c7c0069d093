"""Twenty-second round (issue 33): the twenty-first round's closing list, the look-alikes main's redactor destroyed in
real code (the project virtualenv's site-packages), and three forms from github/codeql's hard-coded credentials tests
(development from this round; bearer/bearer-rules' tests are held out and no case here comes from them). Found: a Basic
scheme's credentials in plain text as a literal (`` `Basic user:pass` ``), an HMAC's key given by position to Node's
`createHmac`. Kept, each with its secret twin still redacted: a placeholder word between runs of signs (`"--- redacted
---"`), a bracketed phrase after signs, a call's other arguments read as a value, a phrase holding snake_case
identifiers, a C macro's name after a function's name, a value in a name's `$` notation, `identified by '…'` in prose,
a form's widget class and an id's field name in minified JavaScript. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    ('    i.password = "--- redacted ---"', f'    i.password = "--- {GENERATED} ---"', GENERATED),
    ('            token = " * [would prune] "', f'            token = " * {GENERATED} "', GENERATED),
    ('    ui.password_input("Cloud user token:", default=api_token or "") or None',
     f'    token: ",{GENERATED}"', GENERATED),
    ('    per_token_step_pattern = "with past_key_values"', f'    per_token_step_pattern = "with {GENERATED}"',
     GENERATED),
    ("- ClientCredentialsOAuthProvider: For client_credentials with client_id + client_secret",
     f"- ClientCredentialsOAuthProvider: {GENERATED}", GENERATED),
    ('        ("set_secret_data_policy", "METH_NOARGS", """', f'        ("set_secret_data_policy", "{GENERATED}", """',
     GENERATED),
    ("            (_shortened_many('pwd$', 're$read', 'res$et',",
     f"            (_shortened_many('pwd$', '{GENERATED}',", GENERATED),
    ("        \"\"\"Load and return a dynamic library identified by 'name'.",
     "        CREATE USER bob IDENTIFIED BY 'name';", "'name'"),
    ('a=[{token:"job",values:()=>[]},{token:"snapshotId",values:()=>[]}]',
     f'a=[{{token:"job",values:()=>[]}},{{token:"{GENERATED}",values:()=>[]}}]', GENERATED),
    ('string:{text:"TextWidget",password:"PasswordWidget",email:"EmailWidget"}',
     f'string:{{text:"TextWidget",password:"{GENERATED}",email:"EmailWidget"}}', GENERATED),
    ('    headers.append("Authorization", `Basic demo:xxxxxxxxxxxxxx`);',
     '    headers.append("Authorization", `Basic demo:q7Rk2vLw9pZx`);', "q7Rk2vLw9pZx"),
    ("    const h = crypto.createHmac('sha256', 'SampleToken');",
     "    const h = crypto.createHmac('sha256', 'pl0qW8rTz3nVx');", "pl0qW8rTz3nVx"),
]

KEPT = [
    # a Basic scheme's holes and a word with no password
    '    "Authorization": `Basic ${AUTH}`,',
    "    auth: `Basic ${user}:${pass}`,",
    '    "Authorization": `Basic foo`,',
    '    msg = "Basic auth: use user:password in the header"',
    # an HMAC's key as a variable or a placeholder
    "    crypto.createHmac('sha256', key)",
    "    crypto.createHmac('sha256', 'your-secret-here')",
    "    crypto.createHmac('sha256', 'mytoken')",
]

REDACTED_CASES = [
    # a Basic scheme's password in plain text, a plain word too (as a URL's)
    ("  auth: `Basic demo:mqpvbweruioanzx`,", "mqpvbweruioanzx"),
    ('    headers.append("Authorization", `Basic demo:demo`);', "Basic demo:demo"),
    # an HMAC's key by position, letters only
    ("    const h = crypto.createHmac('sha256', 'mqpvbweruioanzx');", "mqpvbweruioanzx"),
    # a password's name keeps a camel-case id's name and a capital run; SQL's account statement keeps its value
    ('a={password:"snapshotId",value:x}', "snapshotId"),
    ("create user bob identified by 'hunter2x';", "hunter2x"),
    ('    password = "PasswordWidget9"', "PasswordWidget9"),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
