"""One dynamic partition per registered repository, shared by every asset."""

from dagster import DynamicPartitionsDefinition

REPOS_PARTITION = "repos"
repos_partitions = DynamicPartitionsDefinition(name=REPOS_PARTITION)
