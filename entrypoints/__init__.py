"""Training scripts uploaded as the job's source_dir. They are run as scripts (never imported as
this package); the package marker only lets an installed sagelaunch ship and locate them."""
