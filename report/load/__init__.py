"""Reading a results file: loaded and schema-checked (results), older files read as
current ones (migrate), and typed views of what it records (document): the one place
the report reads the file's keys."""
