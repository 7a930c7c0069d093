"""Forty-fourth round: the look-alikes real code loses most, read from site-packages' 217 changed lines: a URL whose
credentials are a syntax's words (`postgresql://user:pass@host/dbname`, `username:password@`, `myuser:mypassword@`;
SQLAlchemy's, pydantic's, fsspec's docs), a syntax's optional part (`scheme://[user:passwd@]proxy.server:port`), and
an f-string's named holes (`s3://{access_key}:{secret_key}@bucket`: the variables' names, not their values; the
thirty-ninth round's policy redacted them). Each one's twin with a literal password is still redacted, and so is a
dummy that could be a password (`scott:tiger`, `user:secret`). Values are made up here."""

from tests.chunkers.redact_asserts import GENERATED, assert_redacted, pair_test

PAIRS = [
    ('engine = create_engine("postgresql+psycopg2://user:pass@host/dbname")',
     f'engine = create_engine("postgresql+psycopg2://user:{GENERATED}@host/dbname")', GENERATED),
    ("    :connectstring: postgresql+asyncpg://user:password@host:port/dbname[?key=value&key=value...]",
     f"    :connectstring: postgresql+asyncpg://user:{GENERATED}@host:port/dbname", GENERATED),
    ("    driver://username:password@host/database", f"    driver://username:{GENERATED}@host/database", GENERATED),
    ("    ...     'smb://myuser:mypassword@myserver.com/' 'share/folder/file.csv'",
     f"    ...     'smb://myuser:{GENERATED}@myserver.com/' 'share/folder/file.csv'", GENERATED),
    ('    help="Specify a proxy in the form scheme://[user:passwd@]proxy.server:port."',
     f'    help="Specify a proxy in the form scheme://user:{GENERATED}@proxy.server:port."', GENERATED),
    ('uri = f"s3://{access_key}:{secret_key}@mybucket/data.parquet?scheme=http"',
     f'uri = f"s3://{{access_key}}:{GENERATED}@mybucket/data.parquet?scheme=http"', GENERATED),
    ('f"postgresql+asyncpg://{self.POSTGRES_USER}:{self.POSTGRES_PASSWORD}@db/app"',
     f'f"postgresql+asyncpg://{{self.POSTGRES_USER}}:{GENERATED}@db/app"', GENERATED),
]

test_a_look_alike_is_kept_and_its_twin_redacted = pair_test(PAIRS)


def test_a_dummy_that_could_be_a_password_and_a_token_as_a_url_user_are_still_redacted():
    assert_redacted('engine = create_engine("mssql+pyodbc://scott:tiger@mssql2017")', "tiger")
    assert_redacted("postgresql://user:secret@localhost:5433/database", "secret@")
    # a user a rule redacted first (`[REDACTED]`) opens no syntax's optional part: the password goes too
    assert_redacted("https://cec9dfceb0b74c1c9a5e3c135585f364:4f6a592349e249c5906918393766718d@sentry.io/2",
                    "4f6a592349e249c5906918393766718d")
