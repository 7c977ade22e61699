// Command etcd-seed writes Kubernetes objects straight into the lab's etcd, under the keys and in the
// encoding kube-apiserver itself uses, so that a benchmark can hold a cluster of 5,000 nodes and
// 125,000 VolumeAttachments without creating each through the API server (tens of writes a second on
// the lab's machine). What kube-apiserver v1.36 does on a create, and what this does instead:
//
//   - key: <prefix>/<resource>/[<namespace>/]<name> with prefix /registry (--etcd-prefix default) and
//     the resource's storage prefix (nodes are stored under "minions": SpecialDefaultResourcePrefixes
//     in k8s.io/kubernetes/pkg/kubeapiserver);
//   - value: the protobuf serializer's "k8s\x00" envelope around runtime.Unknown{apiVersion, kind, raw}
//     at the storage version (v1, storage.k8s.io/v1, coordination.k8s.io/v1), untransformed (the lab
//     configures no encryption at rest); resourceVersion empty (etcd's revision is the version);
//   - a create is a transaction "if the key's mod revision is 0 then put" (OptimisticPut in
//     go.etcd.io/etcd/client/v3/kubernetes); here up to --batch creates share one transaction, which
//     fails whole if any key exists;
//   - metadata.uid and metadata.creationTimestamp are set when the input has none, as
//     rest.FillObjectMetaSystemFields does.
//
// What it skips: authentication, admission, validation, defaulting on write (kube-apiserver applies
// defaults when it decodes from storage), managedFields. The objects must be valid as given.
//
// Input: one JSON object a line on stdin, each with apiVersion and kind. Output: one JSON summary line.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes/scheme"
)

// storageVersions are the versions kube-apiserver stores each group in (the preferred versions of the
// kinds written here); any other version is refused rather than stored in a form the server would not.
var storageVersions = map[string]string{
	"":                    "v1",
	"storage.k8s.io":      "v1",
	"coordination.k8s.io": "v1",
}

// resourcePrefixes maps a kind to its storage prefix and whether it is namespaced.
var resourcePrefixes = map[schema.GroupKind]struct {
	prefix     string
	namespaced bool
}{
	{Group: "", Kind: "Node"}:                           {"minions", false},
	{Group: "", Kind: "Namespace"}:                      {"namespaces", false},
	{Group: "", Kind: "PersistentVolume"}:               {"persistentvolumes", false},
	{Group: "", Kind: "PersistentVolumeClaim"}:          {"persistentvolumeclaims", true},
	{Group: "", Kind: "Pod"}:                            {"pods", true},
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}: {"volumeattachments", false},
	{Group: "coordination.k8s.io", Kind: "Lease"}:       {"leases", true},
}

type put struct {
	key   string
	value []byte
}

// keyOf is the etcd key kube-apiserver keeps the object under.
func keyOf(prefix string, gvk schema.GroupVersionKind, meta metav1.Object) (string, error) {
	want, known := storageVersions[gvk.Group]
	if !known || want != gvk.Version {
		return "", fmt.Errorf("%s: not a storage version this seeder knows", gvk)
	}
	res, ok := resourcePrefixes[gvk.GroupKind()]
	if !ok {
		return "", fmt.Errorf("%s: no known storage prefix", gvk.GroupKind())
	}
	if meta.GetName() == "" {
		return "", fmt.Errorf("%s without a name", gvk.Kind)
	}
	if res.namespaced != (meta.GetNamespace() != "") {
		return "", fmt.Errorf("%s %s: namespace %q does not fit the kind's scope", gvk.Kind, meta.GetName(), meta.GetNamespace())
	}
	parts := []string{prefix, res.prefix}
	if res.namespaced {
		parts = append(parts, meta.GetNamespace())
	}
	return strings.Join(append(parts, meta.GetName()), "/"), nil
}

// encode decodes one JSON object and returns its key and stored bytes.
func encode(prefix string, line []byte, now metav1.Time) (put, error) {
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(line, nil, nil)
	if err != nil {
		return put{}, err
	}
	meta, ok := obj.(metav1.Object)
	if !ok {
		return put{}, fmt.Errorf("%s has no object metadata", gvk)
	}
	key, err := keyOf(prefix, *gvk, meta)
	if err != nil {
		return put{}, err
	}
	if meta.GetUID() == "" {
		meta.SetUID(uuid.NewUUID())
	}
	if created := meta.GetCreationTimestamp(); created.IsZero() {
		meta.SetCreationTimestamp(now)
	}
	meta.SetResourceVersion("")
	meta.SetSelfLink("")
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf); err != nil {
		return put{}, err
	}
	return put{key: key, value: buf.Bytes()}, nil
}

// create writes one batch in one transaction: every key must be new, as for kube-apiserver's creates.
func create(ctx context.Context, kv clientv3.KV, batch []put) error {
	conds := make([]clientv3.Cmp, len(batch))
	ops := make([]clientv3.Op, len(batch))
	for i, p := range batch {
		conds[i] = clientv3.Compare(clientv3.ModRevision(p.key), "=", 0)
		ops[i] = clientv3.OpPut(p.key, string(p.value))
	}
	resp, err := kv.Txn(ctx).If(conds...).Then(ops...).Commit()
	if err != nil {
		return err
	}
	if !resp.Succeeded {
		return fmt.Errorf("a key of the batch from %s already exists", batch[0].key)
	}
	return nil
}

func main() {
	endpoint := flag.String("endpoint", "", "etcd client URL (the lab's, in lab/control-plane.ts)")
	prefix := flag.String("prefix", "/registry", "kube-apiserver's --etcd-prefix")
	batchSize := flag.Int("batch", 128, "creates per transaction (etcd's --max-txn-ops is 128 by default)")
	inflight := flag.Int("inflight", 8, "transactions in flight")
	flag.Parse()
	if *endpoint == "" {
		fmt.Fprintln(os.Stderr, "etcd-seed: --endpoint is required")
		os.Exit(2)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{*endpoint}, DialTimeout: 10 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd-seed:", err)
		os.Exit(1)
	}
	defer client.Close()

	start := time.Now()
	now := metav1.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := make(chan []put, *inflight)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	for range *inflight {
		wg.Go(func() {
			for batch := range batches {
				if err := create(ctx, client.KV, batch); err != nil {
					fail(err)
				}
			}
		})
	}

	objects, stored, txns := 0, 0, 0
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	batch := make([]put, 0, *batchSize)
	flush := func() {
		if len(batch) > 0 {
			batches <- batch
			txns++
			batch = make([]put, 0, *batchSize)
		}
	}
	for scanner.Scan() && ctx.Err() == nil {
		line := bytes.TrimSpace(scanner.Bytes())
		if len(line) == 0 {
			continue
		}
		p, err := encode(*prefix, line, now)
		if err != nil {
			fail(fmt.Errorf("line %d: %w", objects+1, err))
			break
		}
		objects++
		stored += len(p.value)
		batch = append(batch, p)
		if len(batch) == *batchSize {
			flush()
		}
	}
	if err := scanner.Err(); err != nil {
		fail(err)
	}
	if ctx.Err() == nil {
		flush()
	}
	close(batches)
	wg.Wait()
	if firstErr != nil {
		fmt.Fprintln(os.Stderr, "etcd-seed:", firstErr)
		os.Exit(1)
	}
	summary, _ := json.Marshal(map[string]any{
		"objects": objects, "transactions": txns, "bytes": stored, "seconds": time.Since(start).Seconds(),
	})
	fmt.Println(string(summary))
}
