"""Forty-eighth round: SQL Server's procedures that set a login's, a linked server's or an application role's
password take it by position (`EXEC sp_addlogin 'app', '…'`, `sp_password NULL, '…', 'sa'`, the fifth argument of
`sp_addlinkedsrvlogin`, the fourth of `sp_change_users_login`) or by a parameter's name that says nothing of a
secret (`@new = N'…'`); the stored-procedure chunker's own format, read by no rule before. Kept: the other
arguments, a placeholder, an empty or a variable's password, a comment naming the procedure, prose that quotes
a call (no EXEC, not a statement's start). Values are made up
here."""

from tests.chunkers.redact_asserts import round_tests

KEPT = [
    "EXEC sp_addlogin 'app', '<password>'",
    "EXEC sp_addlogin @loginame, @password",
    "EXEC sp_addlogin 'app', ''",
    "EXEC sp_helplogins 'sa'",
    "-- call sp_password to change it",
    "EXEC sp_addlinkedsrvlogin 'SRV1', 'true'",
    "EXEC sp_change_users_login 'Report'",
    "-- see sp_password ('old', 'new') docs",
]

REDACTED = [
    ("EXEC sp_addlogin 'app', 'Pa55w0rd!x9'", "Pa55w0rd!x9"),
    ("EXEC sp_addlogin 'app', 'Pa55w0rd!x9', 'master'; GO", "Pa55w0rd!x9"),
    ("EXEC sp_password NULL, 'N3wS3cret#1', 'sa'", "N3wS3cret#1"),
    ("EXEC sp_password @old = NULL, @new = N'N3wS3cret#1', @loginame = 'sa'", "N3wS3cret#1"),
    ("EXEC sp_addlinkedsrvlogin 'SRV1', 'false', NULL, 'remote', 'Rm0teP@ss2'", "Rm0teP@ss2"),
    ("EXEC sp_change_users_login 'Auto_Fix', 'user1', NULL, 'Us3rP@ss'", "Us3rP@ss"),
    ("exec sp_addapprole 'Approle', 'R0leP@ss!'", "R0leP@ss!"),
    ("EXEC sp_addlogin 'a', 'Pa55w0rd!x1' EXEC sp_addlogin 'b', 'Zq55w0rd!x2'", "Zq55w0rd!x2"),
    ("EXEC sp_addlogin 'it''s', 'Pa55w0rd!x9' -- the app's login", "Pa55w0rd!x9"),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
