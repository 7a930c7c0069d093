"""Fifth round (issue 33): whispers' destroyed look-alikes and misses, fixed by general rules. Each fix has
a case that fails without it and a look-alike (or a positive) beside it. Values are made up here."""
from tests.chunkers.redact_asserts import round_tests

KEPT = [
    # a single-brace template's hole
    'password: "{password}"',
    'password = "{ password }"',
    "token: {DRONE_TOKEN}",
    # CloudFormation references
    "  DBPassword: !Ref DBPasswordParam",
    "  Password: !ImportValue SharedPassword",
    "  Password: !GetAtt Secret.Value",
    '  Password: !Sub "${Pass}"',
    # a literal of no value
    'password: "null"',
    'password = "none"',
    'api_key = "undefined"',
    # `&amp;` in a URL's query is no connection string's `;`
    "jdbc:mysql://db:3306/shop?user=root&amp;useSSL=false&amp;serverTimezone=UTC",
    "jdbc:mysql://db:3306/shop?user=root&amp;password={pwd}&amp;useSSL=false",
    # a flag that asks for the password takes none; a URL is no flag's value
    "wget --ask-password https://example.com/file.tar.gz",
    "tool --password=https://vault.example.com/v1/x",
    # "secret" inside another word
    'secretary: "Mrs Hudson7"',
    # a mask or a variable as a URL's password
    "amqp://guest:*****@rabbit.example.com:5672",
    "amqps://username:$password@rabbit.example.com:5671",
    # XML element text: a placeholder, a reference, a type's name, a key's name, a weak name's plain word
    "<password>${DB_PASS}</password>",
    "<Password>string</Password>",
    "<password>password</password>",
    "<cache_key>users</cache_key>",
    "<tokenType>bearer</tokenType>",
    # a dictionary's `<key>`, an id under a secret's name, an escaped variable, a template after ENV
    "<key>username</key>",
    "<UserSecretsId>79a3edd0-2092-40a2-a04d-dcb46d5ca9ed</UserSecretsId>",
    "<db_password>$$password</db_password>",
    "ENV DRONE_TOKEN={{ DRONE_TOKEN }}",
    # `$apr1$` without a hash after it
    "sed -e 's/$apr1$/x/' .htpasswd",
]

REDACTED_CASES = [
    # (line, the secret that must go)
    ('password: "{Zq5kVrX1n8tA}"', "Zq5kVrX1n8tA"),
    ('password: "nullable9Pw"', "nullable9Pw"),
    ("  Password: !Sub hunter2Sub", "hunter2Sub"),
    ("jdbc:mysql://db:3306/shop?user=root&amp;password=Hunt3rPw9&amp;useSSL=false", "Hunt3rPw9"),
    ("jdbc:db2://db:50000/shop:user=app&amp;userpass=Hunt3rPw9x", "Hunt3rPw9x"),
    ("jdbc:db2://db:50000/shop?user=app&userpass=Hunt3rPw9x", "Hunt3rPw9x"),
    ("wget --password Hunt3rPw9 https://example.com/file.tar.gz", "Hunt3rPw9"),
    ('secretKey: "Hunt3rPw9z"', "Hunt3rPw9z"),
    ("amqp://guest:Hunt3rPw9@rabbit.example.com:5672", "Hunt3rPw9"),
    ("curl --tlspassword Hunt3rPw9 https://example.com", "Hunt3rPw9"),
    ("curl --proxy-tlspassword Hunt3rPw9 https://example.com", "Hunt3rPw9"),
    ("curl --proxy-user bob:Hunt3rPw9 https://example.com", "Hunt3rPw9"),
    ("<password>Hunt3rPw9</password>", "Hunt3rPw9"),
    ("  <apikey>YXNkZmZmZmZm_Hunt3r</apikey>", "YXNkZmZmZmZm_Hunt3r"),
    ("<ns:ClientSecret>Hunt3rPw9</ns:ClientSecret>", "Hunt3rPw9"),
    ("<cache_key>q8ZrT2vLx9WmP4kN7sYb</cache_key>", "q8ZrT2vLx9WmP4kN7sYb"),
    ("<key>q8ZrT2vLx9WmP4kN7sYb</key>", "q8ZrT2vLx9WmP4kN7sYb"),
    ("ENV DRONE_TOKEN=Hunt3rPw9", "Hunt3rPw9"),
    # a connection string's password holding `&` before its `;`
    ("Server=db;User ID=app;Password=Tr0ub4dor&3;Encrypt=True;", "&3"),
    ('secretarySecret: "Hunt3rPw9"', "Hunt3rPw9"),
    ('secretary_password = "Hunt3rPw9"', "Hunt3rPw9"),
    # an .htpasswd line, Apache's MD5
    ("admin:$apr1$Zq5kVrX1$Kq0yU7e8Xb1Ff2mNpQ3r4/", "Kq0yU7e8Xb1Ff2mNpQ3r4/"),
]


test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
