package ci;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.backend.aggregation.stage.AggregationStage;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;

/**
 * The library's oplog (it stores the entries and runs the change-stream cursors), with the change
 * events reshaped to what MongoDB 6 sends:
 * <ul>
 * <li>update: documentKey {_id} (the library puts the update's operators there), updateDescription
 * {updatedFields, removedFields, truncatedArrays} from the document's images before and after the
 * update, fullDocument only with fullDocument: 'updateLookup' (null once the document is gone);</li>
 * <li>an update without operators is a replace, with the replacement as fullDocument;</li>
 * <li>delete: no fullDocument (the library sends null);</li>
 * <li>every event names its namespace: ns {db, coll};</li>
 * <li>a drop reaches only the dropped collection's streams (the library sends it to every stream).</li>
 * </ul>
 * Not MongoDB's: updatedFields names a changed array whole (MongoDB may name "array.index"),
 * truncatedArrays stays empty, and there is no wallTime (clusterTime's seconds tell the time).
 */
final class ChangeEventOplog implements Oplog {

    private static final String FULL_DOCUMENT = "fullDocument";
    private static final String UPDATE_LOOKUP = "updateLookup";

    /** The fields of the entry this oplog gives the library's for an update; read back by {@link #reshape}. */
    private static final String KEY = "documentKey";
    private static final String DESCRIPTION = "updateDescription";
    private static final String REPLACEMENT = "replacement";

    private final Oplog stored;
    private final MongoBackend backend;

    ChangeEventOplog(Oplog stored, MongoBackend backend) {
        this.stored = stored;
        this.backend = backend;
    }

    @Override
    public void handleInsert(String namespace, List<Document> documents) {
        stored.handleInsert(namespace, documents);
    }

    @Override
    public void handleDelete(String namespace, Document query, List<Object> deletedIds) {
        stored.handleDelete(namespace, query, deletedIds);
    }

    @Override
    public void handleDropCollection(String namespace) {
        stored.handleDropCollection(namespace);
    }

    /**
     * The library's oplog stores `query` as the entry's change and shows it as the event's
     * documentKey; here each document gets its own entry whose change is what the event must say.
     */
    @Override
    public void handleUpdate(String namespace, Document selector, Document query, List<Object> modifiedIds) {
        boolean replacement = query != null && query.keySet().stream().noneMatch(key -> key.startsWith("$"));
        ChangeEventCollection collection = changeEventCollection(namespace);
        for (Object id : modifiedIds) {
            ChangeEventCollection.Images images = collection == null ? null : collection.takeUpdateImages(id);
            Document entry = new Document(KEY, new Document("_id", id));
            if (images != null && replacement) {
                entry.append(REPLACEMENT, images.after());
            } else if (images != null) {
                entry.append(DESCRIPTION, describe(images.before(), images.after()));
            }
            stored.handleUpdate(namespace, selector, entry, List.of(id));
        }
    }

    @Override
    public Cursor createCursor(Document changeStreamDocument, String namespace, Aggregation aggregation) {
        boolean lookup = UPDATE_LOOKUP.equals(changeStreamDocument.get(FULL_DOCUMENT));
        // The lookup is done here (reshape): the library's fails the stream once the collection is dropped.
        Document options = changeStreamDocument.clone();
        options.remove(FULL_DOCUMENT);
        Document ns = new Document("db", Utils.getDatabaseNameFromFullName(namespace))
            .append("coll", Utils.getCollectionNameFromFullName(namespace));
        // First, before the stream's own stages: a $match on operationType or documentKey sees MongoDB's shape.
        aggregation.getStages().add(0, new AggregationStage() {
            @Override
            public String name() {
                return "$changeEventShape";
            }

            @Override
            public Stream<Document> apply(Stream<Document> events) {
                return events.map(event -> reshape(event, ns, lookup)).filter(Objects::nonNull);
            }
        });
        return stored.createCursor(options, namespace, aggregation);
    }

    private Document reshape(Document event, Document ns, boolean lookup) {
        String operationType = String.valueOf(event.get("operationType"));
        Document shaped = new Document("_id", event.get("_id"))
            .append("operationType", operationType)
            .append("clusterTime", event.get("clusterTime"));
        switch (operationType) {
            case "insert" -> shaped
                .append(FULL_DOCUMENT, event.get(FULL_DOCUMENT))
                .append("ns", ns)
                .append("documentKey", event.get("documentKey"));
            case "delete" -> shaped
                .append("ns", ns)
                .append("documentKey", event.get("documentKey"));
            case "update" -> {
                Document entry = (Document) event.get("documentKey");
                Document key = (Document) entry.get(KEY);
                if (entry.containsKey(REPLACEMENT)) {
                    shaped.put("operationType", "replace");
                    shaped.append(FULL_DOCUMENT, entry.get(REPLACEMENT));
                } else if (lookup) {
                    shaped.append(FULL_DOCUMENT, currentDocument(ns, key));
                }
                shaped.append("ns", ns).append("documentKey", key);
                if (entry.containsKey(DESCRIPTION)) {
                    shaped.append(DESCRIPTION, entry.get(DESCRIPTION));
                }
            }
            case "drop" -> {
                // The library sends a drop to every stream of the database without naming the collection;
                // MongoDB sends a collection's stream only its own collection's drop.
                String dropped = droppedCollection(event.get("clusterTime"));
                if (dropped != null && !dropped.equals(ns.get("coll"))) {
                    return null;
                }
                shaped.putAll(event);
                shaped.append("ns", ns);
            }
            default -> { // rename, dropDatabase, invalidate: as the library has them
                shaped.putAll(event);
                shaped.append("ns", ns);
            }
        }
        return shaped;
    }

    /** The collection a drop at `clusterTime` removed, read from its oplog entry; null when it cannot be told. */
    private String droppedCollection(Object clusterTime) {
        MongoCollection<?> entries = backend.resolveDatabase("local").resolveCollection("oplog.rs", false);
        if (entries == null || clusterTime == null) {
            return null;
        }
        for (Document entry : entries.handleQuery(new Document("ts", clusterTime), 0, 1)) {
            if (entry.get("o") instanceof Document command && command.get("drop") instanceof String name) {
                return name;
            }
        }
        return null;
    }

    /** The document as it is now (updateLookup), or null if it is gone, as MongoDB answers. */
    private Document currentDocument(Document ns, Document key) {
        MongoDatabase database = backend.resolveDatabase((String) ns.get("db"));
        MongoCollection<?> collection = database.resolveCollection((String) ns.get("coll"), false);
        if (collection == null) {
            return null;
        }
        for (Document found : collection.handleQuery(key, 0, 1)) {
            return found.cloneDeeply();
        }
        return null;
    }

    private ChangeEventCollection changeEventCollection(String namespace) {
        MongoDatabase database = backend.resolveDatabase(Utils.getDatabaseNameFromFullName(namespace));
        MongoCollection<?> collection = database.resolveCollection(Utils.getCollectionNameFromFullName(namespace), false);
        return collection instanceof ChangeEventCollection changeEvents ? changeEvents : null;
    }

    /**
     * MongoDB's updateDescription of a change from `before` to `after`: the paths whose value is new
     * or changed (into embedded documents, dotted), and the paths removed.
     */
    static Document describe(Document before, Document after) {
        Document updatedFields = new Document();
        List<String> removedFields = new ArrayList<>();
        compare("", before, after, updatedFields, removedFields);
        return new Document("updatedFields", updatedFields)
            .append("removedFields", removedFields)
            .append("truncatedArrays", List.of());
    }

    private static void compare(String prefix, Document before, Document after, Document updatedFields, List<String> removedFields) {
        for (String field : after.keySet()) {
            Object now = after.get(field);
            if (!before.containsKey(field)) {
                updatedFields.put(prefix + field, now);
            } else if (before.get(field) instanceof Document was && now instanceof Document is) {
                compare(prefix + field + ".", was, is, updatedFields, removedFields);
            } else if (!Objects.equals(before.get(field), now)) {
                updatedFields.put(prefix + field, now);
            }
        }
        for (String field : before.keySet()) {
            if (!after.containsKey(field)) {
                removedFields.add(prefix + field);
            }
        }
    }
}
