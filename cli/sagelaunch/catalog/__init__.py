"""What SageMaker, the SDK and AWS publish, read as data: instances, prices and images
(`facts`, from the dated files in data/), the installed SDK's own tables (`sdk_data`), and
framework versions as numbers (`versions`). The ground floor the strategies and the config
model both stand on: it imports nothing of sagelaunch above errors."""
