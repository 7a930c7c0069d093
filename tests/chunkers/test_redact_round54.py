"""Fifty-fourth round, after testpatterndev/patterns' credential test cases (held out for the fifty-third round's
figures): PowerShell's NetworkCredential built from literals, schtasks' `/rp` password, a web session's cookie,
Jenkins' encrypted secrets and a Windows answer file's password are redacted. Kept: what names them without a value.
Values are made up here."""

from tests.chunkers.redact_asserts import round_tests

GENERATED = "Zq8vK2pLm9Xc4Rt7"
KEPT = [
    '$cred = [Net.NetworkCredential]::new("admin", $password)',
    "schtasks /create /tn Backup /tr backup.bat /ru SYSTEM",
    'String cookie = "JSESSIONID=" + session.getId();',
    'response.addCookie(new Cookie("JSESSIONID", id));',
    "Cookie: PHPSESSID=<session-id>",
    "<password>{{PASSWORD}}</password>",
    "<AdministratorPassword><Value>*SENSITIVE*DATA*DELETED*</Value></AdministratorPassword>",
]

REDACTED = [
    ('$cred = [Net.NetworkCredential]::new("admin", "' + GENERATED + '")', GENERATED),
    ('$c = New-Object System.Net.NetworkCredential("user@corp.example", "' + GENERATED + '")', GENERATED),
    ("schtasks /create /tn Backup /tr backup.bat /sc daily /ru CORP\\svc /rp " + GENERATED, GENERATED),
    ("Cookie: JSESSIONID=9F3C2A7B1E6D4F809F3C2A7B1E6D4F80", "9F3C2A7B1E6D4F809F3C2A7B1E6D4F80"),
    ("set-cookie: PHPSESSID=" + GENERATED + "abc123", GENERATED),
    ("<password>{AQAAABAAAAAQ" + GENERATED + GENERATED + "=}</password>", GENERATED),
    ("<AdministratorPassword><Value>" + GENERATED + "</Value><PlainText>true</PlainText></AdministratorPassword>",
     GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
