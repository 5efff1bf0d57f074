"""The TF 1.x "Reading data" how-to: several readers joined by shuffle_batch_join."""

import tensorflow as tf


def read_my_file_format(filename_queue):
    reader = tf.TextLineReader()  # expect: queue-reader
    _, record_string = reader.read(filename_queue)
    example, label = tf.decode_csv(record_string, record_defaults=[[0.0], [0]])
    processed_example = example * 2.0
    return processed_example, label


def input_pipeline(filenames, batch_size, read_threads, num_epochs=None):
    filename_queue = tf.train.string_input_producer(  # expect: queue-producer
        filenames, num_epochs=num_epochs, shuffle=True
    )
    example_list = [read_my_file_format(filename_queue) for _ in range(read_threads)]
    min_after_dequeue = 10000
    capacity = min_after_dequeue + 3 * batch_size
    example_batch, label_batch = tf.train.shuffle_batch_join(  # expect: queue-batcher
        example_list,
        batch_size=batch_size,
        capacity=capacity,
        min_after_dequeue=min_after_dequeue,
    )
    return example_batch, label_batch


def train(filenames, train_op):
    example_batch, label_batch = input_pipeline(filenames, 32, read_threads=4)
    init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
    sess = tf.Session()
    sess.run(init_op)
    coord = tf.train.Coordinator()  # expect: queue-runner
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)  # expect: queue-runner
    try:
        while not coord.should_stop():
            sess.run(train_op)
    except tf.errors.OutOfRangeError:
        print("Done training -- epoch limit reached")
    finally:
        coord.request_stop()
    coord.join(threads)
    sess.close()


def raw_queue(values):
    queue = tf.FIFOQueue(capacity=10, dtypes=[tf.float32])  # expect: queue
    enqueue = queue.enqueue_many([values])
    qr = tf.train.QueueRunner(queue, [enqueue] * 2)  # expect: queue-runner
    tf.train.add_queue_runner(qr)  # expect: queue-runner
    return queue.dequeue()
