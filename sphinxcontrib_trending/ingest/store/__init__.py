"""The columnar results store: parsed inputs as a Parquet dataset.

``local`` is a store folder the loader reads and writes (the build's data
path, and ``sphinx-trending ingest``'s); ``dataset`` reads any store, ours
or the reference's, locally or through fsspec, as a ``parquet`` source.
``columns``, ``layout``, ``rows`` and ``manifest`` say what is in one.
"""
