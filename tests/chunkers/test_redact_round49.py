"""Forty-ninth round, after Samsung/CredSweeper's samples (held out until its figures were taken): a password
written down in prose, a note or a log with its name glued to it (`ID:admin,PW:…`, `user=ops password=…`,
`(pwd:…)`, misspelt `PSWD:=…`, an HTML text's `password: &quot;…&quot;`); a role's or a user's password where SQL
creates or alters it (Postgres' `LOGIN PASSWORD '…'`, MySQL's `IDENTIFIED WITH plugin BY '…'`, Oracle's bare
`IDENTIFIED BY …`); a spec's `%define PASSWORD "…"`, a shell's `set password "…"`; a JSON Web Key's private
members; curl's `--oauth2-bearer` and libcurl's password options; PowerShell's ConvertTo-SecureString by
position. Kept: a parameter's type, a variable, a placeholder, a template glued to the value, a hash, an image's
base64 that holds a token's prefix. Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

KEPT = [
    "def login(password:str, token:Token1):",
    "const o = {password:password1, token:token2}",
    "body = {pass:userPassword2}",
    "password:process.env.DB_PASSWORD",
    "a.token:hover { color: red }",
    "oc login --token=sha256~<token>",
    "#   token          = 1*tchar",
    "# Example token: glsa_YOUR_TOKEN_HERE_12345678",
    "ALTER USER app PASSWORD EXPIRE;",
    "CREATE USER app WITH PASSWORD :pw;",
    "CREATE USER app IDENTIFIED BY password;",
    "ALTER USER 'u'@'%' IDENTIFIED WITH 'mysql_native_password' AS '*0A1B2C3D4E5F60718293A4B5C6D7E8F901234567'",
    "The alter user command sets the password (see the docs).",
    "%define password %{getenv:DB_PW}",
    "set password_file /etc/app/pw",
    '{"d": "M10 10 L20 20 Z", "k": "translation_key_name"}',
    "curl --oauth2-bearer $TOKEN https://api.example.test",
    "curl_easy_setopt(curl, CURLOPT_USERPWD, userpwd);",
    "$p = ConvertTo-SecureString $plain -AsPlainText -Force",
    '<img src="data:image/png;base64,iVBORw0KGgo/EAACRvAWiwzR8rcXFsLiUH13ybj0tdEaNOOyOCeLr1Pimz063torSJYoIkhjXokahQPw'
    'FbHK3fcsQTyWsySxOY5EO5WU4INJpNWY4ycGpRep634M8YJ4gg8ichL+MfMO">',
    "cfat_Zq8Wm2Lk4Rt6Yp0Nv3Bx7Hs1Jd5Gf9Ck2tokenexample",
]

REDACTED = [
    ("password:!Qz7k2Wp9", "!Qz7k2Wp9"),
    ("ID:ops,PW:zqR84mN!", "zqR84mN!"),
    ("user=ops password=zqR84mN!", "zqR84mN!"),
    ("id:ops pwd:zqR84mN!", "zqR84mN!"),
    ("ssh ops@10.0.0.7 (pw:KwqTb4Hx)", "KwqTb4Hx"),
    ("10.0.0.7(ID:ops/PW:kPp41@QRz)", "kPp41@QRz"),
    ("SECRET KEY:QHv8Lm2xTz5Nr1", "QHv8Lm2xTz5Nr1"),
    ("token:QHv8Lm2xTz5Nr1", "QHv8Lm2xTz5Nr1"),
    ("password=>Wq81#zLm", "Wq81#zLm"),
    ("PSWD:=TrOuBaDoUr42", "TrOuBaDoUr42"),
    ("X9_PSSWD=q73Zt1Kmv0-w", "q73Zt1Kmv0-w"),
    ("DB_USER=app;DB_PASSWORD=7QWKD88FH4Z;", "7QWKD88FH4Z"),
    ("<Value>the password:9Zw1TqY0u</Value>", "9Zw1TqY0u"),
    ('placeholder="Your password: &quot;q7re0gPa5$w0Rd&quot;"', "q7re0gPa5$w0Rd"),
    ("ALTER USER 'root'@'localhost' IDENTIFIED WITH caching_sha2_password BY 'Zq8pa5sW0rD';", "Zq8pa5sW0rD"),
    ('exec("CREATE USER app ACCOUNT UNLOCK IDENTIFIED BY Zq8pa5sW0rD")', "Zq8pa5sW0rD"),
    ("ALTER ROLE postgres PASSWORD 'Zq8pa5sW0rD';", "Zq8pa5sW0rD"),
    ("CREATE ROLE app_admin WITH LOGIN PASSWORD Zq8pa5sW0rD;", "Zq8pa5sW0rD"),
    ("create role forum_app login password 'Zq8pa5sW0rD';", "Zq8pa5sW0rD"),
    ('%define PASSWORD "k84QSM54y7"', "k84QSM54y7"),
    ('%global api_token "k84QSM54y7Lm"', "k84QSM54y7Lm"),
    ('SET password "k83.zat47Fy4"', "k83.zat47Fy4"),
    ('"d": "Qv2slaQqyHQPudOpq2mbDskum8rOu9IMkLGjINAFWw"', "Qv2slaQqyHQPudOpq2mbDskum8rOu9IMkLGjINAFWw"),
    ('easy_setopt(curl, CURLOPT_PROXYPASSWORD, ")d!~QRI8ed7293eg@w8&()");', ")d!~QRI8ed7293eg@w8&()"),
    ('--oauth2-bearer "qZs2fjkjD8hUcsQ37b8zHig==" \\', "qZs2fjkjD8hUcsQ37b8zHig=="),
    ("ConvertTo-SecureString -String -Force qsjUE#$gds8z", "qsjUE#$gds8z"),
    ('"ConvertTo-SecureString \\"4yd21JKH~QE8dkz\\""', "4yd21JKH~QE8dkz"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
