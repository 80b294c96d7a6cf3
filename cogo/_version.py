"""The version of cogo, in a module of its own so that submodules can read it without importing the package."""
__version__ = "0.1.0"
