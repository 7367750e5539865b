"""Reading a results file: loaded and schema-checked (results), older versions read as
the current one (versions), and typed views of what it records (document): the one place
the report reads the file's keys."""
