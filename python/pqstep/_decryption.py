"""pqstep.Decryption: the keys of encrypted Parquet files (Parquet Modular
Encryption), and the key material that parquet-java and Arrow's key tools
write (keys wrapped by a KMS, stored in the file or beside it)."""
import base64
import ctypes
import json
import os
import threading

from . import _lib as _c
from ._errors import error as _error


def _key(name, value):
    if isinstance(value, str):
        raise TypeError("%s: give the key as bytes (16, 24 or 32 of them), not str" % name)
    try:
        key = bytes(value)
    except TypeError:
        raise TypeError("%s: give the key as bytes, not %s" % (name, type(value).__name__)) from None
    if len(key) not in (16, 24, 32):
        raise ValueError("%s: a key of %d bytes (AES keys are 16, 24 or 32 bytes)" % (name, len(key)))
    return key


def aes_gcm_unwrap(key, wrapped, aad=b""):
    """AES-GCM decryption of a wrapped key as the Parquet key tools store it
    (nonce (12 bytes), ciphertext, tag (16 bytes)), with `aad`: for KMS
    clients written in Python. Raises pqstep.Error ("decryption failed")
    when the tag does not match."""
    key, wrapped, aad = bytes(key), bytes(wrapped), bytes(aad)
    out = ctypes.create_string_buffer(max(len(wrapped), 1))
    n = ctypes.c_size_t()
    err = _c.pq_error()
    st = _c.pq_aes_gcm_unwrap(key, len(key), wrapped, len(wrapped), aad, len(aad), out, len(out),
                              ctypes.byref(n), ctypes.byref(err))
    if st != _c.PQ_OK:
        raise _error(err)
    return out.raw[:n.value]


class KeyMaterialError(ValueError):
    """Key metadata that is not key material pqstep can read."""


def _material(key_metadata, file_path):
    """The key material JSON (a dict) that `key_metadata` holds or names."""
    try:
        meta = json.loads(bytes(key_metadata).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise KeyMaterialError("the key metadata is not key material (JSON)") from None
    if not isinstance(meta, dict) or meta.get("keyMaterialType") != "PKMT1":
        raise KeyMaterialError("the key metadata is not key material of type PKMT1")
    if meta.get("internalStorage", True):
        return meta
    if file_path is None:
        raise KeyMaterialError("the key material is stored beside the file, and no file path is known")
    ref = meta.get("keyReference")
    folder, name = os.path.split(os.fsdecode(file_path))
    material_file = os.path.join(folder, "_KEY_MATERIAL_FOR_%s.json" % name)
    try:
        with open(material_file, "rb") as f:
            store = json.load(f)
    except OSError as e:
        raise KeyMaterialError("cannot read the key material file %s: %s" % (material_file, e.strerror)) from None
    if ref not in store:
        raise KeyMaterialError("the key material file %s has no key %r" % (material_file, ref))
    return json.loads(store[ref])


class Decryption:
    """The keys of encrypted Parquet files; pass it as decryption= to
    read_table, Reader, scan, dataset or pqstep.dask.read_parquet.

    footer_key     bytes: decrypts an encrypted footer ("PARE" files) and
                   the columns encrypted with it; verifies a plaintext
                   footer's signature
    column_keys    {column path: bytes}: the keys of columns encrypted with
                   their own keys ("a.b.c": path_in_schema joined by ".")
    aad_prefix     bytes: the AAD prefix, when the writer did not store it
    key_retriever  callable(key_metadata: bytes) -> bytes or None: asked
                   for every key not given above, with the key metadata the
                   writer stored (a KMS client plugs in here)
    kms_unwrap     callable(wrapped_key: str, master_key_id: str) -> bytes:
                   reads the key material of parquet-java and Arrow's key
                   tools (PKMT1: in the key metadata, or in the
                   _KEY_MATERIAL_FOR_<file>.json beside the file; single or
                   double wrapping) and unwraps through the caller's KMS;
                   used after key_retriever

    Keys are bytes of 16, 24 or 32; a bad one raises ValueError or
    TypeError naming it. repr() never shows a key. The object pickles
    with its keys and callables (pqstep.dask ships it to workers as the
    user's object, never inside footer bytes). Errors a key_retriever or
    kms_unwrap raises count as "no key" for that column (the read then
    fails naming it); the last one is kept in `last_error`, and a read that
    fails for want of a key names it ("asking for the key raised
    ConnectionError: ...") with it as the pqstep.Error's __cause__.
    """

    __slots__ = ("footer_key", "column_keys", "aad_prefix", "key_retriever", "kms_unwrap", "last_error",
                 "_callbacks", "_lock", "__weakref__")

    def __init__(self, footer_key=None, column_keys=None, aad_prefix=None, key_retriever=None, kms_unwrap=None):
        self.footer_key = None if footer_key is None else _key("footer_key", footer_key)
        cols = {}
        for path, key in dict(column_keys or {}).items():
            if not isinstance(path, str) or not path:
                raise TypeError("column_keys: a column path must be a non-empty str, not %r" % (path,))
            cols[path] = _key("column_keys[%r]" % path, key)
        self.column_keys = cols
        if aad_prefix is not None and isinstance(aad_prefix, str):
            aad_prefix = aad_prefix.encode()
        self.aad_prefix = None if aad_prefix is None else bytes(aad_prefix)
        for name, fn in (("key_retriever", key_retriever), ("kms_unwrap", kms_unwrap)):
            if fn is not None and not callable(fn):
                raise TypeError("%s must be callable, not %s" % (name, type(fn).__name__))
        self.key_retriever = key_retriever
        self.kms_unwrap = kms_unwrap
        self.last_error = None
        self._callbacks = {}  # file path -> its retriever callback (kept while this object lives)
        self._lock = threading.Lock()

    def __repr__(self):
        parts = []
        if self.footer_key is not None:
            parts.append("footer_key=<%d bytes>" % len(self.footer_key))
        if self.column_keys:
            parts.append("column_keys=<%s>" % ", ".join(sorted(self.column_keys)))
        if self.aad_prefix is not None:
            parts.append("aad_prefix=<%d bytes>" % len(self.aad_prefix))
        for name in ("key_retriever", "kms_unwrap"):
            if getattr(self, name) is not None:
                parts.append("%s=%s" % (name, getattr(getattr(self, name), "__name__", "callable")))
        return "Decryption(%s)" % ", ".join(parts)

    def __eq__(self, other):
        return isinstance(other, Decryption) and all(
            getattr(self, n) == getattr(other, n) for n in self.__slots__[:5])

    __hash__ = None

    def __getstate__(self):
        return {n: getattr(self, n) for n in self.__slots__[:5]}

    def __setstate__(self, state):
        for n in self.__slots__[:5]:
            object.__setattr__(self, n, state[n])
        self.last_error = None
        self._callbacks = {}
        self._lock = threading.Lock()

    def unwrap_key_material(self, key_metadata, file_path=None):
        """The key that key material names, unwrapped with kms_unwrap (and,
        for double wrapping, the key-encryption key it unwraps)."""
        m = _material(key_metadata, file_path)
        master = m.get("masterKeyID")
        wrapped_dek = m.get("wrappedDEK")
        if not isinstance(master, str) or not isinstance(wrapped_dek, str):
            raise KeyMaterialError("key material without masterKeyID or wrappedDEK")
        if not m.get("doubleWrapping", False):
            return _key("the unwrapped key", self.kms_unwrap(wrapped_dek, master))
        kek = _key("the unwrapped key-encryption key", self.kms_unwrap(m["wrappedKEK"], master))
        aad = base64.b64decode(m["keyEncryptionKeyID"])
        return aes_gcm_unwrap(kek, base64.b64decode(wrapped_dek), aad)

    def _retrieve(self, key_metadata, file_path):
        if self.key_retriever is not None:
            key = self.key_retriever(key_metadata)
            if key is not None:
                return _key("the retrieved key", key)
        if self.kms_unwrap is not None:
            return self.unwrap_key_material(key_metadata, file_path)
        return None

    def _make_retriever(self, file_path):
        found = {}  # key metadata -> key

        def retriever(user, meta, meta_len, out, out_len):
            km = ctypes.string_at(meta, meta_len) if meta_len else b""
            try:
                with self._lock:
                    key = found.get(km)
                if key is None:
                    key = self._retrieve(km, file_path)
                    if key is not None:
                        with self._lock:
                            found[km] = key
            except Exception as e:  # a KMS failure: this key counts as not given
                self.last_error = e
                return 1
            if key is None:
                return 1
            ctypes.memmove(out, key, len(key))
            out_len[0] = len(key)
            return 0
        return retriever

    def to_c(self, file_path=None):
        """A pq_decryption for reading the file at `file_path` (where
        external key material is looked for): (struct, objects to keep
        alive while the library may use it)."""
        d = _c.pq_decryption()
        _c.pq_decryption_init(ctypes.byref(d))
        keep = [self]
        self.last_error = None  # this read's failures, not an earlier one's

        def buf(b):
            s = ctypes.create_string_buffer(b, len(b))
            keep.append(s)
            return ctypes.cast(s, ctypes.c_void_p), len(b)

        if self.footer_key is not None:
            d.footer_key, d.footer_key_len = buf(self.footer_key)
        if self.aad_prefix is not None:
            d.aad_prefix, d.aad_prefix_len = buf(self.aad_prefix)
        if self.column_keys:
            arr = (_c.pq_column_key * len(self.column_keys))()
            for i, (path, key) in enumerate(self.column_keys.items()):
                p = path.encode()
                keep.append(p)
                arr[i].path = p
                arr[i].key, arr[i].key_len = buf(key)
            keep.append(arr)
            d.column_keys = arr
            d.column_keys_len = len(self.column_keys)
        if self.key_retriever is not None or self.kms_unwrap is not None:
            # One callback per file, kept as long as this object: a reader
            # asks at its footer stage, but a dataset's stream opens readers
            # later, after the call that made the struct has returned. Its
            # keys are remembered by key metadata: one KMS call per key.
            with self._lock:
                cb = self._callbacks.get(file_path)
                if cb is None:
                    cb = _c.KEY_RETRIEVER(self._make_retriever(file_path))
                    self._callbacks[file_path] = cb
            keep.append(cb)
            d.key_retriever = cb
        return d, keep


def explain_failure(e, decryption):
    """`e` (a pqstep.Error from a footer stage), or when it says a key was
    missing or wrong and `decryption`'s key_retriever or kms_unwrap raised
    while it was asked, the same error naming that exception (its cause)."""
    cause = getattr(decryption, "last_error", None)
    if cause is None or e.status not in (_c.PQ_ERR_ENCRYPTED, _c.PQ_ERR_DECRYPT):
        return e
    from ._errors import Error
    out = Error(e.code, "%s (asking for the key raised %s: %s)" % (e.message, type(cause).__name__, cause),
                e.status, e.path)
    out.__cause__ = cause
    return out


def check(name, value):
    """The decryption= option: None or a Decryption."""
    if value is None or isinstance(value, Decryption):
        return value
    raise TypeError("%s must be a pqstep.Decryption, not %s" % (name, type(value).__name__))


__all__ = ["Decryption", "aes_gcm_unwrap", "KeyMaterialError"]
