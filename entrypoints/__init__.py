"""Training scripts uploaded as the job's source_dir, one folder per framework (pytorch/,
tensorflow/, xgboost/, each linking the modules in shared/). They are run as scripts (never
imported as this package); the package marker only lets an installed sagelaunch ship and locate
them, and lets the CLI import the standard-library-only pytorch/torch_mesh.py."""
