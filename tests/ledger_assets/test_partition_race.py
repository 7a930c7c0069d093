"""`ensure_partitions` against another writer: the daemon's sensor adds a registered repo's partition between
`add-repo`'s read of the partitions and its write (tests/e2e/test_soak.py failed so once, on a clean clone)."""

import pytest
import sqlalchemy as db
from dagster import DagsterInstance
from dagster._core.storage.event_log.schema import DynamicPartitionsTable

from ledger_assets.defs.partitions import repos_partitions
from ledger_assets.defs.runs import ensure_partitions


class SensorBetweenReadAndWrite:
    """A real instance whose first write of partitions meets the row another process wrote after the read: the
    other writer's row goes in first, then this write's insert runs into the table's unique constraint, as
    Dagster's select-then-insert does when the sensor's tick lands between them."""

    def __init__(self, instance):
        self.instance, self.raced = instance, 0

    def get_dynamic_partitions(self, name):
        return self.instance.get_dynamic_partitions(name)

    def add_dynamic_partitions(self, name, keys):
        if not self.raced:
            self.raced += 1
            storage = self.instance.event_log_storage
            with storage.index_connection() as conn:
                rows = [{"partitions_def_name": name, "partition": key} for key in keys]
                conn.execute(DynamicPartitionsTable.insert(), rows)  # the sensor's
                conn.execute(DynamicPartitionsTable.insert(), rows)  # this process's, a moment later
        return self.instance.add_dynamic_partitions(name, keys)


def test_a_partition_another_process_added_meanwhile_is_no_error(tmp_path):
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        instance.add_dynamic_partitions(repos_partitions.name, ["old"])
        racing = SensorBetweenReadAndWrite(instance)
        ensure_partitions(racing, ["old", "life"])
        assert racing.raced == 1
        assert sorted(instance.get_dynamic_partitions(repos_partitions.name)) == ["life", "old"]


class StaleReads(SensorBetweenReadAndWrite):
    """Every read stale (the other writer's row never seen), so every write meets the constraint."""

    def get_dynamic_partitions(self, name):
        return ["old"]

    def add_dynamic_partitions(self, name, keys):
        self.raced += 1
        with self.instance.event_log_storage.index_connection() as conn:
            conn.execute(DynamicPartitionsTable.insert(), [{"partitions_def_name": name, "partition": k} for k in keys])
        return None


def test_a_write_that_keeps_failing_raises_after_three_tries(tmp_path):
    """Only so many tries: a constraint that fails every time is raised, not looped on."""
    with DagsterInstance.local_temp(str(tmp_path)) as instance:
        instance.add_dynamic_partitions(repos_partitions.name, ["old", "life"])
        stale = StaleReads(instance)
        with pytest.raises(db.exc.IntegrityError):
            ensure_partitions(stale, ["life"])
        assert stale.raced == 3
