"""Tables and figures as plain data structures, shared by Sphinx and the CLI."""
