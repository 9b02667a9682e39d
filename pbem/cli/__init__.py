"""The `pbem` command line: the group, its one error boundary, the command modules, the console script."""
