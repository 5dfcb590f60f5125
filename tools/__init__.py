"""Developer tools (fixture generators); not part of the installed package."""
