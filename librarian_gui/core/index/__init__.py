"""The link index: records of every note, link resolution, deltas, the cache and queries over it."""
