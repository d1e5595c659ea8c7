print('linked')
