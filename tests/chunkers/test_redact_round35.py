"""Thirty-fifth round: find-sec-bugs/find-sec-bugs (development since the thirty-fourth round) still missed a literal
given to a builder's method named for a secret (`v.secretKey("…")`), to a setter named in another language
(`v.setMotDePasse("…")`) and to JSch's `addIdentity(prvkey, "…")` as the key's passphrase. Found now: after a `.`, a
method whose whole name is a secret's word, or one after a qualifying word (`.password("…")`, `.apiKey("…")`,
`.clientSecret("…")`), given one literal; a setter named `MotDePasse`, `Passwort`, `Senha`, `Contraseña` or
`Wachtwoord`, its literal judged as a password's; addIdentity's last argument when it is a literal (or its
`.getBytes()`); and a key built from a literal's bytes (`new SecretKeySpec("…".getBytes(), …)`, `new
SymmetricSecurityKey(Encoding.UTF8.GetBytes("…"))`, `new HMACSHA256(Encoding.ASCII.GetBytes("…"))`). Kept: a getter's
or a reader's call (`getSecret("orders-db")`, `readPassword("Password: ")`), a prompt's text, a bare `.token("if")`
or `.credentials("same-origin")`, no argument, a name, a placeholder, a sample word, the setter's own word, a path
given to addIdentity alone, a key's bytes from a variable. Values are made up here."""

import time

from tests.chunkers.redact_asserts import GENERATED, lines_test, pair_test, round_tests

PW = "Tr4in-Ledger-91"

# (look-alike, its secret twin, the twin's secret)
PAIRS = [
    ("builder.password();", f'builder.password("{PW}");', PW),
    ("builder.password(name);", f'DataSourceBuilder.create().password("{PW}").build();', PW),
    ('builder.password("${DB_PASSWORD}");', f'v.secretKey("{GENERATED}");', GENERATED),
    ('vault.getSecret("orders-db");', f'client.apiKey("{GENERATED}");', GENERATED),
    ('console.readPassword("Password: ");', f'cfg.clientSecret("{GENERATED}")', GENERATED),
    ('questionary.password("Password:").ask()', f'auth.accessToken("{GENERATED}");', GENERATED),
    ('lexer.token("identifier");', f"opts.password('{PW}')", PW),
    ("u.setSenha(senha);", f'usuario.setSenha("{PW}");', PW),
    ('u.setSenha("senha");', f'v.setMotDePasse("{PW}");', PW),
    ('u.setSenhaHint("Zq8vN3xL0p");', f'u.setPasswort("{PW}");', PW),
    ('jsch.addIdentity("~/.ssh/id_rsa");', f'jsch.addIdentity("~/.ssh/id_rsa", "{PW}");', PW),
    ("jsch.addIdentity(prv, passphrase.getBytes());", f'jsch.addIdentity(prv, pub, "{PW}".getBytes());', PW),
    ('new SecretKeySpec(key.getBytes(), "AES");', f'new SecretKeySpec("{GENERATED}".getBytes(), "AES");', GENERATED),
    ('new SymmetricSecurityKey(Encoding.UTF8.GetBytes(config["Jwt:Key"]));',
     f'new SymmetricSecurityKey(Encoding.UTF8.GetBytes("{GENERATED}"));', GENERATED),
    ("using var h = new HMACSHA256(Encoding.UTF8.GetBytes(key));",
     f'using var h = new HMACSHA256(Encoding.ASCII.GetBytes("{GENERATED}"));', GENERATED),
]

KEPT = [
    'fetch.credentials("same-origin");',
    'builder.password("password");',
    'builder.password("changeme");',
    'x.hashPassword("abc");',
    'u.setSenha("");',
    'new SecretKeySpec("".getBytes(), "AES");',
    'jsch.addIdentity("~/.ssh/id_rsa", "");',
]

REDACTED_CASES = [
    ('v.secretKey("9f2kQ7zL1m");', "9f2kQ7zL1m"),
    ('u.set_mot_de_passe("Soleil1234")', "Soleil1234"),
    ('u.setContraseña("Soleil1234");', "Soleil1234"),
    ('u.setWachtwoord("Soleil1234");', "Soleil1234"),
    ('defaultJSch.addIdentity("", new byte[0], new byte[0], "this_passphrase_is_hardcoded".getBytes());',
     "this_passphrase_is_hardcoded"),
]

LINES = [
    ("class Vault {\n  void open() {\n    Vault v = new Vault();\n"
     f'    v.secretKey("{GENERATED}");\n    v.name("orders");\n  }}\n}}\n', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)
test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED_CASES)
test_only_the_values_line_changes = lines_test(LINES)


def test_the_new_calls_are_read_in_linear_time():
    """Worst cases of the new patterns (benchmarks/redact_worst_case.py's method_*, setter_foreign_*, identity_*,
    key_bytes_many), 60 KB each: every one under 0.2 CPU s here; the bound is generous."""
    from chunkers.redact import redact_text

    def rep(unit, tail="", head="", size=60_000):
        return head + unit * ((size - len(head) - len(tail)) // len(unit)) + tail

    for text in (rep("apassword", '("x")', "x."), rep("a.password(b) ", '("x"'), rep('.password("a'),
                 rep("asenha", '("x")', "x.setA"), rep("set", 'senha("x")', "a."), rep(',"a"', " x)", "j.addIdentity(k"),
                 rep("addIdentity(k,", '"x")'), rep(",a", "", 'j.addIdentity(k,"'),
                 rep("new HMACSHA256(Encoding.UTF8.GetBytes(", '"x"))')):
        t = time.process_time()
        redact_text(text)
        assert time.process_time() - t < 1.0
