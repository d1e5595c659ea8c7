print("golden stand-in for train_xgboost.py")
