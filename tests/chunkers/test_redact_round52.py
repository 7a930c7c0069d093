"""Fifty-second round, from real code's look-alikes: a URL's or a connection string's credentials that are the
syntax's words (fsspec's `gist://username:token@id`, SMB's `workgroup;user:password@`, `github://org:repo@sha`,
pyodbc's `UID=user;PWD=password`) are kept, as `user:password@host` is since the forty-fourth round. A value among
them, or a word that could be a password (`user:secret@`, the twelfth round's policy), is still redacted."""

from tests.chunkers.redact_asserts import round_tests

GENERATED = "Zq8vK2pLm9Xc4Rt7"
KEPT = [
    "# The default infer_storage_options can handle gist://username:token@id/file",
    "    gist://username:TOKEN@<gist_id>/file.txt",
    "# smb://workgroup;user:password@host:port/share/folder/file.csv",
    "- 'github://org:repo@sha/precip/catalog.yml', where the sha is also included",
    'connection_string = "DRIVER={SQL Server Native Client 10.0};SERVER=dagger;DATABASE=test;UID=user;PWD=password"',
    '"Db": "Server=db;User Id=user;Password=password;"',
]

REDACTED = [
    ("smb://corp;admin:" + GENERATED + "@host/share", GENERATED),
    ("gist://username:" + GENERATED + "@id/file", GENERATED),
    ("github://org:" + GENERATED + "@sha/path", GENERATED),
    ("url = 'postgres://user:secret@db/app'", "secret@"),
    ('connection_string = "DRIVER={SQL};SERVER=db;UID=user;PWD=' + GENERATED + '"', GENERATED),
    ('conn = "Server=db;User Id=user;Password=password;AccountKey=' + GENERATED + '"', GENERATED),
]

test_a_look_alike_is_kept, test_a_secret_is_redacted = round_tests(KEPT, REDACTED)
