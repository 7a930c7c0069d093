"""The Dagster objects: assets and checks, resources, the partitions, the job and the sensor. Thin: they call the core."""
