package ci;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.ArrayFilters;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;

/**
 * A memory collection that keeps what each write did to a document, for the oplog:
 * <ul>
 * <li>every update (update command or findAndModify) leaves the document's image before and after
 * it, which {@link ChangeEventOplog} turns into MongoDB's updateDescription;</li>
 * <li>a findAndModify reports the document it updated, replaced, upserted or removed to the oplog,
 * as the update and delete commands do.</li>
 * </ul>
 * Every write runs under this collection's monitor (the library's collections are synchronized), so
 * images and records never mix two writes.
 */
final class ChangeEventCollection extends MemoryCollection {

    /** An update's document before and after it. */
    record Images(Document before, Document after) {
    }

    /** Images of the updates of the write in progress, by _id; taken by the oplog when it records them. */
    private final Map<Object, Images> updateImages = new LinkedHashMap<>();

    /** While a findAndModify runs: the documents it inserted (upsert) and removed. */
    private List<Document> inserted;
    private List<Document> removed;

    ChangeEventCollection(MongoDatabase database, String collectionName, CollectionOptions options, CursorRegistry cursorRegistry) {
        super(database, collectionName, options, cursorRegistry);
    }

    /** Called by the library for every document an update changed (not for one it left as it was). */
    @Override
    protected void handleUpdate(Integer position, Document oldDocument, Document newDocument) {
        super.handleUpdate(position, oldDocument, newDocument);
        // oldDocument is already the library's copy; newDocument is the stored one, changed by later writes.
        updateImages.put(newDocument.get(getIdField()), new Images(oldDocument, newDocument.cloneDeeply()));
    }

    @Override
    public synchronized void addDocument(Document document) {
        super.addDocument(document);
        if (inserted != null) {
            inserted.add(document.cloneDeeply());
        }
    }

    @Override
    public synchronized void removeDocument(Document document) {
        super.removeDocument(document);
        if (removed != null) {
            removed.add(document);
        }
    }

    @Override
    public synchronized Document updateDocuments(Document selector, Document updateQuery, ArrayFilters arrayFilters,
                                                 boolean isMulti, boolean isUpsert, Oplog oplog) {
        // Images the oplog did not take (it only takes those of the ids it records) go with the write.
        updateImages.clear();
        try {
            return super.updateDocuments(selector, updateQuery, arrayFilters, isMulti, isUpsert, oplog);
        } finally {
            updateImages.clear();
        }
    }

    /** The images of the update of `id` by the write in progress, or null; each is taken once. */
    synchronized Images takeUpdateImages(Object id) {
        return updateImages.remove(id);
    }

    /**
     * The findAndModify command, with its write reported to the oplog as MongoDB's oplog has it: an
     * update (or replacement) of the document it found, the insert of an upsert, or a delete.
     */
    synchronized Document findAndModify(Document command, Oplog oplog) {
        updateImages.clear();
        inserted = new ArrayList<>();
        removed = new ArrayList<>();
        List<Document> upserts = inserted;
        List<Document> removals = removed;
        try {
            Document result = findAndModify(command);
            // A copy, taken under this collection's monitor: the library answers with the stored document
            // itself, which a write of another connection could change before the answer is encoded.
            if (result.get("value") instanceof Document value) {
                result.put("value", value.cloneDeeply());
            }
            Document selector = command.get("query") instanceof Document query ? query : new Document();
            if (!removals.isEmpty()) {
                oplog.handleDelete(getFullName(), selector, removals.stream().map(doc -> doc.get(getIdField())).toList());
                result.put("lastErrorObject", new Document("n", removals.size()));
            } else if (!upserts.isEmpty()) {
                oplog.handleInsert(getFullName(), upserts);
                // MongoDB names the upserted document's _id; the library leaves lastErrorObject out.
                result.put("lastErrorObject", new Document("n", upserts.size())
                    .append("updatedExisting", Boolean.FALSE)
                    .append("upserted", upserts.get(0).get(getIdField())));
            } else if (!updateImages.isEmpty()) {
                oplog.handleUpdate(getFullName(), selector, (Document) command.get("update"), new ArrayList<>(updateImages.keySet()));
            } else if (!result.containsKey("lastErrorObject")) {
                // Nothing matched: MongoDB says so.
                Document nothing = new Document("n", 0);
                if (command.get("update") != null) {
                    nothing.append("updatedExisting", Boolean.FALSE);
                }
                result.put("lastErrorObject", nothing);
            }
            return result;
        } finally {
            inserted = null;
            removed = null;
            updateImages.clear();
        }
    }
}
