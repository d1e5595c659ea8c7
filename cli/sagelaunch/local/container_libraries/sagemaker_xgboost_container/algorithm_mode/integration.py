# Written by `python -m sagelaunch.local.xgboost_surface` from
# aws/sagemaker-xgboost-container@cb8df91cd44c7b01c53ccf321fd3fdf3eb78adae
# src/sagemaker_xgboost_container/algorithm_mode/integration.py.
# Do not edit: a module written by hand in its place is kept instead.
"""sagemaker_xgboost_container.algorithm_mode.integration in sagelaunch local: the container's
names, not its behaviour. Its constants carry the container's values; the rest raises when
used (never at import), naming what is not emulated and where the job runs instead."""

from sagemaker_xgboost_container import _not_emulated

FORMATTERS = {
    "verbose": {
        "format": "[%(asctime)s:%(levelname)s] %(message)s",
        "datefmt": "%Y-%m-%d:%H:%M:%S",
    },
    "simple": {"format": "[%(levelname)s:%(name)s] %(message)s"},
}
CONSOLE_LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "verbose": {
            "format": "[%(asctime)s:%(levelname)s] %(message)s",
            "datefmt": "%Y-%m-%d:%H:%M:%S",
        },
        "simple": {"format": "[%(levelname)s:%(name)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "level": "INFO",
            "formatter": "verbose",
            "class": "logging.StreamHandler",
            "stream": None,
        }
    },
    "root": {"handlers": ["console"], "level": "INFO"},
}
LOGGING_CONFIGS = {
    "console_only": {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "verbose": {
                "format": "[%(asctime)s:%(levelname)s] %(message)s",
                "datefmt": "%Y-%m-%d:%H:%M:%S",
            },
            "simple": {"format": "[%(levelname)s:%(name)s] %(message)s"},
        },
        "handlers": {
            "console": {
                "level": "INFO",
                "formatter": "verbose",
                "class": "logging.StreamHandler",
                "stream": None,
            }
        },
        "root": {"handlers": ["console"], "level": "INFO"},
    }
}
setup_main_logger = _not_emulated.function(__name__, "setup_main_logger")
