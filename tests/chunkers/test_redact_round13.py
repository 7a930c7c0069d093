"""Thirteenth round (issue 33): SonarSource's sonar-php checks (a development corpus now). Their secrets missed are
found: a password by position in a call that opens a connection or logs in, a long token compared with `auth` or
`oauth` (by an operator, PHP's `<=>` too, or by `strcmp`-like functions, either way round), a secret's name with a
PHP namespace or `auth` alone given to `define`, `api.key=`, `credential=` and `auth=` in a query, a secret among a
string's blank-separated `name=value` pairs and `name= value` alone. Their look-alikes that the redactor destroyed are
kept: PHP's `.` concatenation between two strings' ends, a placeholder or a bind parameter before `&` in a query, a
name whose last word says it is a reference. Each look-alike has a secret twin that stays redacted; the limits of the
new forms (a plain word by position, a flag's short value, a third argument) are kept. Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, pair_test, round_tests

PASSWORD = "h7Kp!x2Wq9"

# (look-alike, its secret twin, the twin's secret): the twin is the same line with a secret in the value's place
PAIRS = [
    # PHP's `.` concatenation of a constant or a variable between two strings' ends
    ("$dsn = \"password=\" . DB_PASS . \"'\";", f"$dsn = \"password={GENERATED}\" . DB_PASS . \"'\";", GENERATED),
    ("$q = 'token=' . $tok . '&x=1';", f"$q = 'token={GENERATED}' . $tok . '&x=1';", GENERATED),
    # a placeholder or a bind parameter named for the secret, then `&` and more pairs
    ('$q = "password=?&user=bob";', f'$q = "password={PASSWORD}&user=bob";', PASSWORD),
    ('$q = "secret=:secret&user=bob";', f'$q = "secret={GENERATED}&user=bob";', GENERATED),
    # a name whose last word says it points at the secret
    ('$API_TOKEN_REF = "vault:/kv9Tq2LmX4pZ7wR1";', f'$API_TOKEN = "vault:/kv9Tq2LmX4pZ7wR1";', "kv9Tq2LmX4pZ7wR1"),
    ('db_password_reference = "sm:/Pq8xW3nZ5tK1vR7y"', 'db_password = "sm:/Pq8xW3nZ5tK1vR7y"', "Pq8xW3nZ5tK1vR7y"),
    # by position to a connection's call: a plain word, a host, a database's name stay; a password does not
    ('$link = mysqli_connect("db.local", "app", "shopdb");', f'$link = mysqli_connect("db.local", "app", "{PASSWORD}");',
     PASSWORD),
    ('$pdo = new PDO("mysql:host=db;dbname=shop", "app", "admin2024");',
     f'$pdo = new PDO("mysql:host=db;dbname=shop", "app", "{PASSWORD}");', PASSWORD),
    # a short word is a flag's value among blank-separated pairs
    ('$conninfo = "host=db sslmode=on secret=no";', f'$conninfo = "host=db sslmode=on secret={GENERATED}";', GENERATED),
    # `auth` alone compared with a word, a scheme's name: kept; with a generated token: redacted
    ('if ($auth === "basic-digest") {', f'if ($auth === "{GENERATED}") {{', GENERATED),
    # a third string makes no two-way comparison
    (f'strcmp("{GENERATED}", $auth, "x");', f'strcmp("{GENERATED}", $auth);', GENERATED),
]

KEPT = [
    # by position: the first argument (a host, a DSN), a name, a path
    (f'ldap_bind($ds, "cn=admin,dc=example,dc=org", $pass);'),
    ('$c = oci_connect("scott", "tiger", "//db.local/XE");'),
    ('socket_bind($sock, "127.0.0.1", 8080);'),
    # `auth=` and `credential=` with a word in a query: a mode, not a secret
    ('$url = "https://api.example.com/v1?mode=x&auth=basic";'),
    ('$url = "https://api.example.com/v1?mode=x&credential=include";'),
    # a call's code in a string is no list of blank-separated pairs
    ('snippet = "connect(user=u, password=pw)"'),
]

REDACTED_CASES = [
    # a password by position in a call that opens a connection or logs in
    (f'$link = mysqli_connect("db.local", "app", "{PASSWORD}", "shop");', PASSWORD),
    (f'$c = oci_connect("scott", "{PASSWORD}");', PASSWORD),
    (f'$ok = ldap_bind($ds, $dn, "{PASSWORD}");', PASSWORD),
    (f'$pdo = new PDO($dsn, "app", "{PASSWORD}");', PASSWORD),
    (f'$mbox = imap_open("{{mail.local:993/imap/ssl}}INBOX", "me", "{PASSWORD}");', PASSWORD),
    (f'conn = pymysql.connect("db.local", "app", "{PASSWORD}")', PASSWORD),
    (f'maxdb_change_user($link, "app", "{PASSWORD}");', PASSWORD),
    # a long token compared with `auth` or `oauth`: operators either way round, PHP's `<=>`, comparing functions
    (f'if ($oauth == "{GENERATED}") {{', GENERATED),
    (f'if ("{GENERATED}" !== $auth) {{', GENERATED),
    (f'return $auth <=> "{GENERATED}";', GENERATED),
    (f'if ("{GENERATED}" <=> $user_auth) {{', GENERATED),
    (f'if (strcmp($auth, "{GENERATED}") === 0) {{', GENERATED),
    (f'if (strcasecmp("{GENERATED}", $oauth)) {{', GENERATED),
    (f'if (hash_equals($apiToken, "{GENERATED}")) {{', GENERATED),
    (f'if (strncmp($token, "{GENERATED}", 23) == 0) {{', GENERATED),
    (f'if ($password <=> "{PASSWORD}") {{', PASSWORD),
    # `$oauth` assigned; a secret's name with a namespace or `auth` alone given to define
    (f'$oauth = "{GENERATED}";', GENERATED),
    (f'define("App\\Config\\ApiToken", "{GENERATED}");', GENERATED),
    (f"define('AUTH', '{GENERATED}');", GENERATED),
    # query pairs: `api.key=`, `credential=`, `auth=` with a generated value
    (f'$u = "https://api.example.com/v1?user=a&api.key={GENERATED}";', GENERATED),
    (f'$u = "https://api.example.com/v1?user=a&credential={GENERATED}";', GENERATED),
    (f'$u = "https://api.example.com/v1?user=a&auth={GENERATED}";', GENERATED),
    # blank-separated pairs (libpq's conninfo, PDO's DSN), a secret's name among them; `name= value` alone
    (f'$conninfo = "host=db.local port=5432 dbname=shop user=app password={PASSWORD}";', PASSWORD),
    (f'$dsn = "pgsql:host=db.local dbname=shop secret={GENERATED}";', GENERATED),
    (f'$p = "token={GENERATED} user=bob";', GENERATED),
    (f'$p = "api_key= {GENERATED}";', GENERATED),
]


test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
