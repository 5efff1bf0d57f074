"""tf.contrib names of TF 1.2-1.14 that TF 1.15's tf.contrib no longer had:
moved to core before TF 1.15, so the generated tables, read from TF 1.15's
sources, lack them. Written by hand; each row as the generated ones.

tf.contrib.data of TF 1.2 and 1.3 was the first tf.data: its Dataset (with
map(num_threads=, output_buffer_size=), which `_contrib_calls` rewrites),
Iterator and file datasets moved to core in TF 1.4 with the same arguments
(core added trailing ones). tf.compat.v1.data keeps TF 1.x's Dataset (its
make_one_shot_iterator, output_types, ...) and Iterator.
"""

_V1 = "tf.compat.v1.data."
# symbol -> (outcome, successor, note), as a generated module's ROWS.
ROWS = {
    f"tf.contrib.data.{name}": ("exact", _V1 + name, "")
    for name in (
        "Dataset",
        "Iterator",
        "TextLineDataset",
        "FixedLengthRecordDataset",
    )
}
# A member of an early name that its successor lacks -> the TF 2.x function
# that takes the same arguments. TF 1.2's Iterator.from_dataset(dataset,
# shared_name=None) is TF 1.3's dataset.make_initializable_iterator(shared_name).
MEMBERS = {
    "tf.contrib.data.Iterator.from_dataset": _V1 + "make_initializable_iterator",
}
