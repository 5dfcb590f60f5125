"""The release, in a module of its own: the extension and the command line name it.

The package's ``__init__`` hands Sphinx the extension; were the version
there, the extension would import the module that imports it.
"""

__version__ = "0.1.0"
