// The floor of a relay hop on this machine (scripts/bench/relay_floor.py runs it): a UDP
// forwarder that does nothing but move each datagram from one socket to another, in one of
// three thread layouts.
//   relay_floor MODE IN_PORT OUT_PORT   (loopback)
//   MODE 0: one thread, a blocking receive then a send: what a relay costs with no hand-off;
//   MODE 1: the receiving thread hands each datagram to a sending thread (mutex and condition
//           variable): a DDS stack whose event loop hands a sample to the node's executor,
//           which sends it itself;
//   MODE 2: receiving thread -> worker thread -> sending thread: two hand-offs, the event loop
//           to the executor and back to the event loop for the send (rustdds's path).
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  char data[65536];
  int length;
  int full;
} Slot;

static int receiver_socket, sender_socket;
static struct sockaddr_in destination;
static Slot to_worker = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
static Slot to_sender = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void put(Slot *slot, const char *data, int length) {
  pthread_mutex_lock(&slot->lock);
  while (slot->full) pthread_cond_wait(&slot->changed, &slot->lock);
  memcpy(slot->data, data, length);
  slot->length = length;
  slot->full = 1;
  pthread_cond_broadcast(&slot->changed);
  pthread_mutex_unlock(&slot->lock);
}

static int take(Slot *slot, char *data) {
  pthread_mutex_lock(&slot->lock);
  while (!slot->full) pthread_cond_wait(&slot->changed, &slot->lock);
  int length = slot->length;
  memcpy(data, slot->data, length);
  slot->full = 0;
  pthread_cond_broadcast(&slot->changed);
  pthread_mutex_unlock(&slot->lock);
  return length;
}

static void send_on(const char *data, int length) {
  sendto(sender_socket, data, length, 0, (struct sockaddr *)&destination, sizeof destination);
}

static void *sender(void *slot) {
  static char data[65536];
  for (;;) send_on(data, take(slot, data));
  return NULL;
}

static void *worker(void *unused) {
  static char data[65536];
  (void)unused;
  for (;;) put(&to_sender, data, take(&to_worker, data));
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: relay_floor MODE(0|1|2) IN_PORT OUT_PORT\n");
    return 2;
  }
  int mode = atoi(argv[1]);
  if (mode < 0 || mode > 2) {
    fprintf(stderr, "relay_floor: MODE: %s is not 0, 1 or 2\n", argv[1]);
    return 2;
  }
  receiver_socket = socket(AF_INET, SOCK_DGRAM, 0);
  sender_socket = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in local = {0};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  local.sin_port = htons(atoi(argv[2]));
  if (bind(receiver_socket, (struct sockaddr *)&local, sizeof local) != 0) {
    perror("relay_floor: bind");
    return 1;
  }
  destination = local;
  destination.sin_port = htons(atoi(argv[3]));
  pthread_t first, second;
  if (mode == 1) pthread_create(&first, NULL, sender, &to_worker);
  if (mode == 2) {
    pthread_create(&first, NULL, worker, NULL);
    pthread_create(&second, NULL, sender, &to_sender);
  }
  static char data[65536];
  for (;;) {
    int length = recv(receiver_socket, data, sizeof data, 0);
    if (length < 0) continue;
    if (mode == 0)
      send_on(data, length);
    else
      put(&to_worker, data, length);
  }
}
