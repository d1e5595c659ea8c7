"""Between SageMaker SDK jobs and launch configs, both ways: `export` renders a plan as a plain
SDK script (sdk_v2: a v2 estimator, tuner_v2 its tuner; sdk_v3: a ModelTrainer; pysource writes
the Python), so a team can leave sagelaunch or move to SDK v3 with the same job; `import` turns a
CreateTrainingJob or tuning request back into a config (importer, with import_extras,
tuning_import and tf_import)."""
