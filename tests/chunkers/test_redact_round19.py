"""Nineteenth round (issue 33): the eighteenth round's closing list from auth0/repo-supervisor (development from
this round; Checkmarx/2ms is held out and no case here comes from it). Secrets missed are found: a getter under a
secret's name that returns a literal (`getSecret: () => '…'`), an environment assignment after a comma in a YAML
flow list (`command: [ "sh", "-c", export, API_KEY=…]`), a quoted label of several words ending in `Key` whose
words make a secret's name (`"Mailgun Secret Key": "…"`) holding a generated value, and a Kubernetes env entry
whose `value:` is on the line after a secret's `- name:`. Look-alikes are kept, each with its secret twin still
redacted: a getter's plain word or template, a reference in a flow list, a label's sentence or translation, an env
entry's `$(VAR)` reference. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

LEET = "Wq7!zP3#kL9mN2xR"
MAILGUN_LIKE = "key-7bq2m9xk4jt8wz1rf6hn3pd5vc0ys2la"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    ("  getSecret: () => 'loading',", f"  getSecret: () => '{GENERATED}',", GENERATED),
    ("  getToken: () => `${prefix}-token`,", f"  getToken: () => `{GENERATED}`,", GENERATED),
    ('  command: [ "sh", "-c", export, API_KEY=$API_KEY]',
     f'  command: [ "sh", "-c", export, API_KEY={GENERATED}]', GENERATED),
    ("  args: [--debug, DB_PASSWORD={{ db_password }}, PORT=8080]",
     f"  args: [--debug, DB_PASSWORD={GENERATED}, PORT=8080]", GENERATED),
    ('  "Secret Key": "Geheimer Schlüssel",', f'  "Secret Key": "{GENERATED}",', GENERATED),
    ('  "API Key": "Enter your API key here",', f'  "API Key": "{GENERATED}",', GENERATED),
    ('env:\n  - name: DB_PASSWORD\n    value: "$(POSTGRES_PASSWORD)"',
     f'env:\n  - name: DB_PASSWORD\n    value: "{GENERATED}"', GENERATED),
]

KEPT = [
    # a getter of a name, not of a secret; a getter returning a member
    "  getSecretName: () => 'my-app-secret',",
    "  getSecret: () => this.secret,",
    # a call's keyword argument (no flow list) holds a variable
    "  client = connect(host, password=db_password, port=5432)",
    "        [dict(run_id=run_id, key=tag, value=new_tags[tag]) for tag in added_tags],",
    # no secret's name in the flow list: by policy a bare value (repo-supervisor's USER_ID)
    '  command: [ "sh", "-c", export, USER_ID=984267C934L692S8109S270]',
    "  args: [--debug, DB_PASSWORD_FILE=/run/secrets/db]",
    # a label whose words make no secret's name
    f'  "Public Key": "{GENERATED}",',
    f'  "Primary Key": "{GENERATED}",',
    # an env entry: no secret's name, a number, a reference from a Secret
    'env:\n  - name: USER\n    value: "test_user"',
    'env:\n  - name: TOKEN_TTL\n    value: "3600"',
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password",
]

REDACTED_CASES = [
    (f"  getSecret: () => '{GENERATED}',", GENERATED),
    (f'  const apiKey = async () => "{LEET}";', LEET),
    (f"  getPassword: () => \"{LEET}\",", LEET),
    (f'  command: [ "sh", "-c", export, API_KEY={GENERATED}]', GENERATED),
    ("  args: [--debug, DB_PASSWORD=Zk3m9QpLx7, PORT=8080]", "Zk3m9QpLx7"),
    (f'  "Mailgun Secret Key": "{MAILGUN_LIKE}",', MAILGUN_LIKE),
    (f"  'Stripe API Key' => '{GENERATED}',", GENERATED),
    (f'env:\n  - name: PASSWORD\n    value: "{LEET}"\n  - name: USER\n    value: "test_user"', LEET),
    (f"        - name: API_TOKEN\n          value: {GENERATED}", GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
