/* expect: knr.c:4: vmcc refuses: K&R-style parameter declarations */
int g;

int old(a) int a;
{
    return a + g;
}

int main(void)
{
    return old(1);
}
