"""The report's edge: rows and figures made into report.md, report_details.md,
report.html, results.csv and plots (command is the `render` subcommand), with the
formatting, tables, glossary and escaping they share."""
